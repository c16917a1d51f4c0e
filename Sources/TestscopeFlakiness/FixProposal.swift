import Foundation

/// A proposed fix with the file's text before and after it: `FixVerifier` writes `patched` into its copy
/// of the package (the diff is made from the same two texts, so `git apply` of it gives `patched`).
package struct FixProposal: Sendable {
    package var fix: ProposedFix
    package var original: String
    package var patched: String
    /// The `count` lines from 1-based line `start` of `original` that `lines` replace (`patched`'s change).
    package var change: (start: Int, count: Int, lines: [String])

    /// Each file's text with all of `proposals`' changes (they touch different functions, so their line
    /// ranges do not overlap): applied from the last line up, so earlier line numbers still hold.
    package static func combined(_ proposals: [FixProposal]) -> [String: (original: String, patched: String)] {
        var result: [String: (original: String, patched: String)] = [:]
        for (file, group) in Dictionary(grouping: proposals, by: \.fix.file) {
            let original = group[0].original
            var lines = original.components(separatedBy: "\n")
            for proposal in group.sorted(by: { $0.change.start > $1.change.start }) {
                let change = proposal.change
                lines.replaceSubrange((change.start - 1)..<(change.start - 1 + change.count), with: change.lines)
            }
            result[file] = (original, lines.joined(separator: "\n"))
        }
        return result
    }
}

/// Proposes a patch for an order-dependent test (iFixFlakies): a victim gets its cleaners' statements at
/// the start of its body, a brittle test its setters' statements; else the reset statement of the first
/// shared-state item found. Assertions are left out of the copied statements.
package struct FixProposer: Sendable {
    package var sources: TestFunctionSource.Files

    package init(sources: TestFunctionSource.Files) { self.sources = sources }

    /// A proposal for each victim and brittle test that has one, by finding index.
    package func proposals(for findings: [TestFinding]) -> [Int: FixProposal] {
        var result: [Int: FixProposal] = [:]
        for (index, finding) in findings.enumerated() {
            if let proposal = proposal(for: finding) { result[index] = proposal }
        }
        return result
    }

    package func proposal(for finding: TestFinding) -> FixProposal? {
        guard finding.classification == .odVictim || finding.classification == .odBrittle,
              let target = sources.function(of: finding.id) else { return nil }
        let donors: (source: ProposedFix.Source, tests: [String]) = finding.classification == .odVictim
            ? (.cleaner, finding.cleaners) : (.setter, finding.setterGroups.first ?? [])
        var statements: [[String]] = []
        for donor in donors.tests {
            // A donor whose function is not found gives nothing: a partial cleaner would not clean.
            guard let function = sources.function(of: donor) else { statements = []; break }
            statements += function.statements(droppingAssertions: true)
        }
        var source = donors.source
        if statements.isEmpty, let reset = finding.sharedState?.items.first?.resetStatement {
            (source, statements) = (.stateReset, [reset.components(separatedBy: "\n")])
        }
        guard !statements.isEmpty else { return nil }
        let change = target.inserting(statements)
        let diff = UnifiedDiff.make(file: target.file, lines: target.lines, endsWithNewline: target.endsWithNewline,
                                    start: change.start, count: change.count, with: change.lines)
        var patchedLines = target.lines
        patchedLines.replaceSubrange((change.start - 1)..<(change.start - 1 + change.count), with: change.lines)
        let newline = target.endsWithNewline ? "\n" : ""
        return FixProposal(fix: ProposedFix(source: source, file: target.file, diff: diff),
                           original: target.lines.joined(separator: "\n") + newline,
                           patched: patchedLines.joined(separator: "\n") + newline, change: change)
    }
}

/// A unified diff of one change to one file, with 3 lines of context, as `git apply` and `patch -p1` take it.
package enum UnifiedDiff {
    /// The `count` lines from 1-based line `start` of `lines` (none: an insertion before it) become `new`.
    package static func make(file: String, lines: [String], endsWithNewline: Bool, start: Int, count: Int, with new: [String]) -> String {
        let context = 3
        let first = max(1, start - context), end = min(lines.count + 1, start + count + context)  // end: one past the last
        let before = lines[(first - 1)..<(start - 1)], removed = lines[(start - 1)..<(start - 1 + count)]
        let after = lines[(start - 1 + count)..<(end - 1)]
        var out = "--- a/\(file)\n+++ b/\(file)\n"
        out += "@@ -\(first),\(before.count + removed.count + after.count) +\(first),\(before.count + new.count + after.count) @@\n"
        // The file's last line without a line break: said after it (on each side where it is the last line).
        let reachesEnd = end == lines.count + 1 && !endsWithNewline
        let marker = "\\ No newline at end of file\n"
        for line in before { out += " \(line)\n" }
        for line in removed { out += "-\(line)\n" }
        if reachesEnd, after.isEmpty, !removed.isEmpty { out += marker }
        for line in new { out += "+\(line)\n" }
        if reachesEnd, after.isEmpty, !new.isEmpty { out += marker }
        for line in after { out += " \(line)\n" }
        if reachesEnd, !after.isEmpty { out += marker }
        return out
    }
}
