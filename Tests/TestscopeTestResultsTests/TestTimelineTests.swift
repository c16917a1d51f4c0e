import Foundation
import XCTest
@testable import TestscopeTestResults

/// The timeline that tells which test started a process left running after its test process ended.
final class TestTimelineTests: XCTestCase {
    func testWindowsPickTheTestsRunningThenElseTheLastStarted() {
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        var timeline = TestTimeline()
        timeline.started("A", at: t0)
        timeline.ended("A", at: t0.addingTimeInterval(1))
        timeline.started("B", at: t0.addingTimeInterval(1.5))
        timeline.ended("B", at: t0.addingTimeInterval(3))
        func at(_ seconds: Double, _ width: Double = 0.01) -> [String] {
            timeline.tests(runningWithin: t0.addingTimeInterval(seconds)...t0.addingTimeInterval(seconds + width))
        }
        XCTAssertEqual(at(0.5), ["A"])
        XCTAssertEqual(at(2), ["B"])
        // Between the two (a tearDown): the last one that started.
        XCTAssertEqual(at(1.2), ["A"])
        // A window (a clock tick) over both: both are named.
        XCTAssertEqual(at(0.995, 0.51), ["A", "B"])
        XCTAssertEqual(at(-5), [])
        // Still running: open-ended.
        timeline.started("C", at: t0.addingTimeInterval(4))
        XCTAssertEqual(at(100), ["C"])
    }

    /// Every test function (suites are not on it) of a recorded parallel Swift Testing run is on the timeline at the instant of its own
    /// `testStarted` event, and the spans end at its `testEnded`.
    func testSwiftTestingSpansComeFromTheStreamsInstants() throws {
        for sample in ["Concurrency", "Crashy", "Inventory", "Shapes"] {
            let text = try RecordedLogs.text(sample, "swift-testing-events.jsonl")
            let stream = SwiftTestingEventStream.parse(text)
            let timeline = stream.timeline
            var checked = 0
            for line in text.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let payload = object["payload"] as? [String: Any], payload["kind"] as? String == "testStarted",
                      let id = payload["testID"] as? String, stream.tests[id]?.isSuite == false,
                      let since1970 = ((payload["instant"] as? [String: Any])?["since1970"] as? NSNumber)?.doubleValue else { continue }
                let started = Date(timeIntervalSince1970: since1970)
                let specifier = SwiftTestingEventStream.split(id).specifier
                XCTAssertTrue(timeline.tests(runningWithin: started...started).contains(specifier), "\(sample): \(specifier)")
                checked += 1
            }
            XCTAssertGreaterThan(checked, 0, sample)
        }
    }
}
