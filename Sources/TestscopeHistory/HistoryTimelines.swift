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

/// How a run of a test becomes a sparkline's point (the Tests page's and history.html's).
package enum HistoryTimelines {
    /// Outcome severity: a run with several iterations shows its worst.
    static let severity = ["crashed": 6, "timed-out": 5, "failed": 4, "expected-failure": 2, "passed": 1, "skipped": 0]

    /// The point of one run of a test from its iterations.
    static func point(run: String, date: Date, _ iterations: ArraySlice<HistoryTestRow>) -> HistoryTimelinePoint {
        var point = HistoryTimelinePoint(run: run, date: date, outcome: iterations.first?.outcome ?? "skipped", duration: nil)
        for row in iterations {
            if row.outcome != point.outcome, (severity[row.outcome] ?? 3) > (severity[point.outcome] ?? 3) { point.outcome = row.outcome }
            if let duration = row.duration { point.duration = max(point.duration ?? 0, duration) }
        }
        return point
    }

    /// The point of every test of `record` (the run being made, on the Tests page).
    package static func points(_ record: HistoryRecord) -> [String: HistoryTimelinePoint] {
        Dictionary(grouping: record.executions, by: \.test).mapValues { executions in
            point(run: record.run.uuid, date: record.run.startedAt, executions.map {
                HistoryTestRow(run: 0, iteration: $0.iteration, outcome: $0.outcome, duration: $0.duration, message: nil)
            }[...])
        }
    }
}
