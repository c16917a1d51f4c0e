import TestscopeCoverage
@testable import TestscopeImpact
import TestscopeTestResults
import XCTest

/// Failure labels: a failing test that ran changed lines is "touched"; every doubt is "unknown" with its reason.
final class FailureLabelTests: XCTestCase {
    let fixture = ImpactFixture.standard
    let counter = "Sources/Core/Counter.swift"

    /// This run's per-test coverage: testIncrement ran lines 3-5, testDoubled 6-8 of Counter.swift.
    var coverage: PerTestCoverage {
        PerTestCoverage(contexts: [.init(id: ""), .init(id: "CoreTests.CounterTests/testIncrement"), .init(id: "CoreTests.CounterTests/testDoubled"),
                                   .init(id: "AppTests.AppTests/testApp")],
                        lost: [], files: [.init(path: counter, lastLine: 12, runs: [.init(context: 1, lines: "3-5"), .init(context: 2, lines: "6-8")])])
    }

    func label(_ test: String, _ changes: [FileChange], coverage: PerTestCoverage? = nil, isNew: Bool = false, withMap: Bool = false) -> FailureLabel {
        let map = fixture.map(executed: ImpactFixture.executed)
        let impact = ChangeAnalyzer(map: map, layout: fixture.layout).analyze(changes)
        return FailureLabel.label(test: test, coverage: coverage ?? self.coverage, impact: impact, layout: fixture.layout, isNew: isNew,
                                  map: withMap ? map : nil)
    }

    /// A changed file this run's report leaves out (here Greet.swift: only Counter.swift is reported): the map
    /// says who executed it when recorded.
    func testAChangedFileOutsideTheReportIsAnsweredByTheMap() {
        let greet = fixture.change("Sources/Core/Greet.swift", to: ImpactFixture.other.replacingOccurrences(of: "n * 2", with: "n * 3"))
        var withGreet = coverage
        withGreet.contexts.append(.init(id: "CoreTests.GreetTests/testGreet"))
        XCTAssertEqual(label("CoreTests.GreetTests/testGreet", [greet], coverage: withGreet, withMap: true), .touched("Sources/Core/Greet.swift:3"))
        XCTAssertEqual(label("CoreTests.CounterTests/testDoubled", [greet], withMap: true), .notTouched)
        XCTAssertEqual(label("CoreTests.CounterTests/testDoubled", [greet]), .unknown("changed file Sources/Core/Greet.swift is not in the coverage report"))
        // A new file: no test ran it when the map was recorded; its declarations reach the target's tests.
        let added = FileChange(path: "Sources/Core/Extra.swift", kind: .added, oldText: nil, newText: "public func extra() -> Int { 1 }\n")
        XCTAssertEqual(label("CoreTests.CounterTests/testDoubled", [added], withMap: true),
                       .unknown("declarations changed in Core (Sources/Core/Extra.swift); CoreTests depends on it"))
    }

    func bodyEdit() -> FileChange {
        fixture.change(counter, to: ImpactFixture.core.replacingOccurrences(of: "value += 1", with: "value += 2"))
    }

    func testTouchedAndNotTouched() {
        XCTAssertEqual(label("CoreTests.CounterTests/testIncrement", [bodyEdit()]), .touched("Sources/Core/Counter.swift:4"))
        XCTAssertEqual(label("CoreTests.CounterTests/testDoubled", [bodyEdit()]), .notTouched)
    }

    func testADeletionTouchesTheLinesOfTheBlockAroundIt() {
        let deleted = fixture.change(counter, to: ImpactFixture.core.replacingOccurrences(of: "        value += 1 // one step\n", with: ""))
        // Line 3-4 now hold increment's `{` and `}`: the block around the deletion.
        XCTAssertEqual(label("CoreTests.CounterTests/testIncrement", [deleted]), .touched("Sources/Core/Counter.swift:3"))
    }

    func testDoubtsAreUnknownWithTheirReason() {
        XCTAssertEqual(label("CoreTests.CounterTests/testNew", [bodyEdit()], isNew: true), .unknown("new test"))
        var lost = coverage
        lost.lost = ["CoreTests.CounterTests/testDoubled"]
        XCTAssertEqual(label("CoreTests.CounterTests/testDoubled", [bodyEdit()], coverage: lost), .unknown("no coverage of the test in this run"))
        XCTAssertEqual(label("CoreTests.CounterTests/testDoubled", [fixture.change("Package.resolved", to: "{}")]), .unknown("Package.resolved changed"))
        let resource = fixture.change("Sources/Core/Resources/data.json", to: "[]")
        XCTAssertEqual(label("AppTests.AppTests/testApp", [resource]),
                       .unknown("resource of Core changed (Sources/Core/Resources/data.json); AppTests depends on it"))
        let testFile = fixture.change("Tests/CoreTests/CounterTests.swift", to: "func testX() {}")
        XCTAssertEqual(label("CoreTests.CounterTests/testDoubled", [testFile]),
                       .unknown("changed file Tests/CoreTests/CounterTests.swift is not in the coverage report"))
    }
}
