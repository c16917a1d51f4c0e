import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeTestResults

/// Wording shared by the flaky reports.
package enum FlakyText {
    /// `polluter: A; cleaner: C`, `setter: S`, or "".
    package static func culprits(_ finding: TestFinding) -> String {
        var parts: [String] = []
        if !finding.polluters.isEmpty { parts.append("polluter\(finding.polluters.count == 1 ? "" : "s"): " + finding.polluters.joined(separator: ", ")) }
        if !finding.setters.isEmpty { parts.append("setter\(finding.setters.count == 1 ? "" : "s"): " + finding.setters.joined(separator: ", ")) }
        if !finding.cleaners.isEmpty { parts.append("cleaner\(finding.cleaners.count == 1 ? "" : "s"): " + finding.cleaners.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }

    /// `fix: cleaner's statements at the start of testA_menuWithoutLabs — verified (3 of 3 passed)`; nil without a fix.
    package static func fix(_ finding: TestFinding) -> String? {
        guard let fix = finding.fix else { return nil }
        // A reset names the state it resets (`reset of retryLimit`), as the shared-state line does.
        let what = fix.source == .stateReset ? finding.sharedState?.items.first.map { "reset of \($0.name)" } ?? fix.what : fix.what
        return "fix: \(what) at the start of \(classAndName(finding.id).name) — \(fix.verification.text)"
    }

    /// Per NOD mode, the runs the test failed in and ran in (`[(stress, 3, 3), (plain, 0, 4)]`), in the
    /// order of the report's modes; empty when the runs took one mode.
    package static func failuresByMode(_ finding: TestFinding, _ report: FlakyReport) -> [(mode: NODMode, failed: Int, ran: Int)] {
        let modes = report.modes.filter { mode in report.orders.contains { $0.mode == mode } }
        guard modes.count > 1 else { return [] }
        return modes.map { mode in
            let runs = finding.verdicts.indices.filter { $0 < report.orders.count && report.orders[$0].mode == mode }
            let ran = runs.filter { finding.verdicts[$0] == .pass || finding.verdicts[$0] == .fail }
            return (mode, ran.filter { finding.verdicts[$0] == .fail }.count, ran.count)
        }
    }

    /// `failed under stress 3 of 3, parallel 1 of 3, plain 0 of 4` (most telling first), or nil.
    package static func modeLine(_ finding: TestFinding, _ report: FlakyReport) -> String? {
        let tally = failuresByMode(finding, report)
        guard !tally.isEmpty else { return nil }
        let sorted = tally.enumerated().sorted { a, b in
            let (x, y) = (a.element, b.element)
            let rx = x.ran == 0 ? 0 : Double(x.failed) / Double(x.ran), ry = y.ran == 0 ? 0 : Double(y.failed) / Double(y.ran)
            return rx != ry ? rx > ry : a.offset < b.offset
        }.map(\.element)
        return "failed under " + sorted.map { "\($0.mode.rawValue) \($0.failed) of \($0.ran)" }.joined(separator: ", ")
    }

    static func classAndName(_ id: String) -> (className: String, name: String) { TestIdentity.classAndName(of: id) }

    /// `shared state: FeatureFlags.beta (written FlagTests.swift:24, read SharedState.swift:20)`, then the
    /// other candidates; `shared state: outside the process (file Lock.path, …)`; or the note. `short`: the
    /// best item alone, with file names instead of paths (the final screen).
    package static func sharedState(_ state: SharedStateFinding, short: Bool = false) -> String {
        func sites(_ sites: [SourceSite]) -> String {
            guard let first = sites.first else { return "–" }
            let file = short ? String(first.file.split(separator: "/").last ?? Substring(first.file)) : first.file
            return "\(file):\(first.line)" + (sites.count > 1 ? " +\(sites.count - 1)" : "")
        }
        func describe(_ item: SharedStateItem) -> String { "\(item.name) (written \(sites(item.writeSites)), read \(sites(item.readSites)))" }
        if state.outsideProcess {
            return "shared state: outside the process" + (state.outsideEvidence.first.map { ": " + describe($0) } ?? "")
        }
        guard let best = state.items.first else { return "shared state: " + (state.note ?? "none found") }
        let others = state.items.dropFirst()
        if short { return "shared state: " + describe(best) + (others.isEmpty ? "" : " (+\(others.count) more)") }
        return "shared state: " + state.items.map(describe).joined(separator: "; ")
    }

    /// `testscope flaky --package-path P --seed S --replay K [--runs N]`.
    package static func replay(_ report: FlakyReport, run: Int) -> String {
        let runs = report.orders.count == FlakyDefaults.runs ? "" : " --runs \(report.orders.count)"
        // A run's mode comes from its index and the modes: a replay needs the same modes.
        let modes = report.modes == NODMode.defaults ? "" : " --nod-modes " + report.modes.map(\.rawValue).joined(separator: ",")
        return "\(report.reproduction.testscopePrefix) --seed \(report.seed) --replay \(run)\(runs)\(modes)"
    }

    /// What happened in a run for the outcome matrix: the outcome's name, or `not run`.
    static func outcome(_ report: FlakyReport, run: Int, test: String) -> String {
        report.executions[run].results[test]?.outcome.rawValue ?? "not-run"
    }
}

/// Defaults of `testscope flaky` that the reports need to know (to leave them out of commands).
package enum FlakyDefaults {
    package static let runs = 10
    /// Without `--jobs`, detection runs go up to this many per core while the CPUs sit idle.
    package static let maxJobsPerCore = 4
}
