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

    static func classAndName(_ id: String) -> (className: String, name: String) { TestIdentity.classAndName(of: id) }

    /// `testscope flaky --package-path P --seed S --replay K [--runs N]`.
    package static func replay(_ report: FlakyReport, run: Int) -> String {
        let runs = report.orders.count == FlakyDefaults.runs ? "" : " --runs \(report.orders.count)"
        return "\(report.reproduction.testscopePrefix) --seed \(report.seed) --replay \(run)\(runs)"
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
