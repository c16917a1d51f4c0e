import Foundation
import TestscopeCoverage
import TestscopeImpact

extension AffectedSelection {
    /// What `RunRequest.carryForward` takes for this selection: the skipped tests' per-test lines stored
    /// with the map in `history`, moved onto the working tree. Nil when nothing is skipped, there is no
    /// map, or it was recorded without its lines (before schema 3): the report is then the run's own.
    func carriedCoverage(history: URL, busyTimeout: TimeInterval) throws -> CarriedCoverage? {
        let skipped = Set(decisions.filter { !$0.run }.map(\.test))
        guard let map, !skipped.isEmpty,
              let recorded = try HistoryImpactStore(url: history, busyTimeout: busyTimeout).recordedCoverage(of: map) else { return nil }
        return CoverageCarry.carried(recorded, commit: map.commit, skipped: skipped, changes: changes)
    }
}
