import Foundation
import TestscopeReports
import TestscopeExecution
import TestscopeFlakiness

/// The screen `testscope flaky` ends with, in the order a reader needs it: the verdict (how many tests
/// flake and how, how many fail in every run, the seed), then one block per test that is not stable —
/// what it is, its culprits, the state they share and the command that reproduces it — fitted to the terminal's width except
/// for the commands, which stay whole so that they can be copied. `flaky.txt` keeps the full table.
package struct FlakyScreen {
    package var terminal: Terminal

    package init(terminal: Terminal) { self.terminal = terminal }

    /// The width rows are fitted to: the terminal's; none in a CI log, where a cut polluter's name
    /// would be lost and a long line costs nothing.
    var width: Int? { terminal.columns }

    /// `✗ Flaky: 3 flaky tests (2 order-dependent, 1 not), 1 fails in every run, 12 stable (6 runs)`.
    package func verdict(_ report: FlakyReport) -> String {
        let flaky = report.gatingFlaky
        let failing = report.gatingFailures
        let orderDependent = flaky.filter { $0.classification != .nod }.count
        var parts: [String] = []
        if !flaky.isEmpty {
            let kinds = orderDependent == flaky.count ? "order-dependent"
                : orderDependent == 0 ? "not order-dependent" : "\(orderDependent) order-dependent, \(flaky.count - orderDependent) not"
            parts.append("\(flaky.count) flaky test\(flaky.count == 1 ? "" : "s") (\(kinds))")
        }
        if !failing.isEmpty { parts.append("\(failing.count) fail\(failing.count == 1 ? "s" : "") in every run") }
        if parts.isEmpty { parts.append("no flaky or failing tests") }
        let stable = report.count(.stable)
        parts.append("\(stable) stable")
        let quarantined = report.findings.filter(\.quarantined).count
        if quarantined > 0 { parts.append("\(quarantined) quarantined") }
        // The seed is on the first line `flaky` prints and in the replay line: not repeated here.
        let text = (flaky.isEmpty && failing.isEmpty ? "✓ " : "✗ ") + "Flaky: " + parts.joined(separator: ", ")
            + " (\(report.orders.count) runs)"
        return terminal.styled(fitted(text), flaky.isEmpty && failing.isEmpty ? .green : failing.isEmpty ? .yellow : .red)
    }

    /// One block per test that is not stable: failing in every run first, then order-dependent, then not.
    package func findings(_ report: FlakyReport) -> [String] {
        let rank: [FlakyClassification: Int] = [.consistentFailure: 0, .odVictim: 1, .odBrittle: 2, .nod: 3]
        let shown = report.findings.filter { rank[$0.classification] != nil }
            .enumerated().sorted { (rank[$0.element.classification]!, $0.offset) < (rank[$1.element.classification]!, $1.offset) }
            .map(\.element)
        var lines: [String] = []
        for finding in shown {
            let kind = finding.classification.rawValue + (finding.quarantined ? " (quarantined)" : "")
            let failed = " · failed \(finding.failedRuns)/\(finding.runs) runs"
            // The name gives way (its middle) so the line fits; below 12 columns of room it is kept whole.
            let name = width.map { ScreenText.middle(finding.id, width: max(12, $0 - kind.count - 1 - failed.count)) } ?? finding.id
            lines.append(terminal.styled(kind, style(finding)) + " " + name + failed)
            let culprits = FlakyText.culprits(finding)
            if !culprits.isEmpty { lines.append(fitted("    " + culprits)) }
            if let state = finding.sharedState { lines.append(fitted("    " + FlakyText.sharedState(state, short: true))) }
            if let note = finding.note { lines.append(fitted("    note: " + note)) }
            // Which conditions bring a NOD test out says what kind of flakiness it is (stress: timing).
            if finding.classification == .nod, let modes = FlakyText.modeLine(finding, report) { lines.append(fitted("    " + modes)) }
            if let fix = FlakyText.fix(finding), let diff = finding.fix?.diff {
                // The diff cut to the width here; whole in flaky.txt, flaky.json and flaky.html.
                lines.append(fitted("    " + fix))
                lines += diff.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { fitted("      " + $0) }
            }
            if let command = report.reproduce(finding)?.testscope { lines.append("    $ " + command) }
        }
        return lines
    }

    /// The command that replays any run of the seed (whole: it is meant to be copied).
    package func replayLine(_ report: FlakyReport) -> String {
        "Replay run K of this seed: " + FlakyText.replay(report, run: 0).replacingOccurrences(of: "--replay 0", with: "--replay K")
    }

    private func fitted(_ line: String) -> String { width.map { ScreenText.end(line, width: $0) } ?? line }

    private func style(_ finding: TestFinding) -> Terminal.Style {
        if finding.quarantined { return .dim }
        return finding.classification == .consistentFailure ? .red : .yellow
    }
}
