import Foundation

/// One run of one test as a sparkline shows it.
package struct HistoryTimelinePoint: Sendable, Equatable {
    package var run: String
    package var date: Date
    /// passed, failed, skipped… (the worst of the run's iterations: a flaky run that failed once failed).
    package var outcome: String
    /// The longest of the run's iterations.
    package var duration: Double?
}

/// The per-test timelines of the last runs: what the Tests page's sparklines draw.
package enum HistoryTimelines {
    /// Outcome severity: a run with several iterations shows its worst.
    static let severity = ["crashed": 6, "timed-out": 5, "failed": 4, "expected-failure": 2, "passed": 1, "skipped": 0]

    /// By test key, the points of the last `last` runs that ran it, oldest first.
    package static func build(_ records: [HistoryRecord], last: Int) -> [String: [HistoryTimelinePoint]] {
        var timelines: [String: [HistoryTimelinePoint]] = [:]
        for record in records {
            var worst: [String: HistoryTimelinePoint] = [:]
            for e in record.executions {
                var point = worst[e.test] ?? HistoryTimelinePoint(run: record.run.uuid, date: record.run.startedAt, outcome: e.outcome, duration: e.duration)
                if (severity[e.outcome] ?? 3) > (severity[point.outcome] ?? 3) { point.outcome = e.outcome }
                if let d = e.duration { point.duration = max(point.duration ?? 0, d) }
                worst[e.test] = point
            }
            for (test, point) in worst { timelines[test, default: []].append(point) }
        }
        return timelines.mapValues { Array($0.suffix(last)) }
    }
}
