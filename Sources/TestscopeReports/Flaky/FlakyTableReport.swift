import Foundation
import TestscopeExecution
import TestscopeFlakiness

/// The terminal table: every test that is not stable (test, classification, failed runs / runs,
/// polluters or setters, reproduction command), the counts, and the seed.
package struct FlakyTableReport: ReportRenderer {
    package var fileName: String { "flaky.txt" }
    package var terminal: Terminal

    package init(terminal: Terminal) { self.terminal = terminal }

    package func render<Output: TextOutput>(_ report: FlakyReport, to out: inout Output) throws {
        let shown = report.findings.filter { $0.classification != .stable && $0.classification != .skipped }
        if shown.isEmpty {
            try out.write(terminal.styled("No flaky or failing tests", .green) + " in \(report.orders.count) runs.\n")
        } else {
            var rows: [[String]] = [["test", "classification", "failed", "polluters / setters", "reproduce"]]
            for finding in shown {
                let label = finding.classification.rawValue + (finding.quarantined ? " (quarantined)" : "")
                let culprits = FlakyText.culprits(finding)
                rows.append([finding.id, label, "\(finding.failedRuns)/\(finding.runs)", culprits.isEmpty ? "–" : culprits,
                             report.reproduce(finding)?.testscope ?? ""])
            }
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for (index, row) in rows.enumerated() {
                var line = ""
                for column in 0..<4 {
                    let cell = row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    line += style(cell, column: column, row: index, finding: index == 0 ? nil : shown[index - 1]) + "  "
                }
                line += row[4]
                try out.write(line.trimmingTrailingSpaces() + "\n")
            }
            for finding in shown where finding.note != nil {
                try out.write("note: \(finding.id): \(finding.note!)\n")
            }
            for finding in shown {
                guard let state = finding.sharedState else { continue }
                try out.write("\(finding.id): \(FlakyText.sharedState(state))\n")
            }
            // The whole diff, as `git apply` takes it.
            for finding in shown {
                guard let line = FlakyText.fix(finding), let fix = finding.fix else { continue }
                try out.write("\(finding.id): \(line)\n\(fix.diff)")
            }
        }
        let quarantined = report.findings.filter(\.quarantined).count
        try out.write("\(report.summaryLine)\(quarantined > 0 ? " (\(quarantined) quarantined)" : "")\n")
        try out.write("Seed \(report.seed): replay run K with `\(FlakyText.replay(report, run: 0).replacingOccurrences(of: "--replay 0", with: "--replay K"))`\n")
    }

    private func style(_ cell: String, column: Int, row: Int, finding: TestFinding?) -> String {
        guard let finding else { return terminal.styled(cell, .bold) }
        guard column == 1 else { return cell }
        switch finding.classification {
        case .consistentFailure: return terminal.styled(cell, .red)
        case .odVictim, .odBrittle, .nod: return terminal.styled(cell, finding.quarantined ? .dim : .yellow)
        default: return cell
        }
    }
}

fileprivate extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}
