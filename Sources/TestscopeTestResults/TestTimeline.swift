import Foundation

/// When each test of a process ran, to tell which test started a process that outlived its test
/// process (the process table gives a start time to within 10 ms).
package struct TestTimeline: Sendable {
    struct Span: Sendable {
        var test: String
        var start: Date
        var end: Date?
    }

    private var spans: [Span] = []

    package init() {}

    package mutating func started(_ test: String, at date: Date = Date()) {
        spans.append(Span(test: test, start: date))
    }

    package mutating func ended(_ test: String, at date: Date = Date()) {
        if let open = spans.lastIndex(where: { $0.test == test && $0.end == nil }) { spans[open].end = date }
    }

    /// Both timelines' spans (XCTest's and Swift Testing's, in one process).
    package static func + (lhs: TestTimeline, rhs: TestTimeline) -> TestTimeline {
        var both = lhs
        both.spans += rhs.spans
        return both
    }

    /// The tests running at some moment of `window` (a process's start time is known to a clock tick,
    /// 10 ms; XCTest's times to a millisecond, hence the slack); else the last test that started
    /// before it (the process was started between tests). Several when the window cannot tell them apart.
    package func tests(runningWithin window: ClosedRange<Date>, slack: TimeInterval = 0.002) -> [String] {
        let running = spans.filter {
            $0.start.addingTimeInterval(-slack) <= window.upperBound && ($0.end ?? .distantFuture).addingTimeInterval(slack) >= window.lowerBound
        }
        if !running.isEmpty { return running.map(\.test) }
        return spans.last { $0.start <= window.upperBound }.map { [$0.test] } ?? []
    }
}

extension SwiftTestingEventStream {
    /// The function tests' spans: each test's start as a date, its end from the monotonic instants.
    package var timeline: TestTimeline {
        var timeline = TestTimeline()
        for (id, state) in states where tests[id]?.isSuite != true {
            guard let start = state.startedAt else { continue }
            let name = Self.split(id).specifier
            timeline.started(name, at: start)
            if let began = state.started, let ended = state.ended { timeline.ended(name, at: start.addingTimeInterval(ended - began)) }
        }
        return timeline
    }
}
