import TestscopeCoverage

/// Classifies file changes with the package's layout and the map's functions (docs/impact-analysis.md's
/// rules): a body edit reaches the tests that executed the function; anything else reaches more.
package struct ChangeAnalyzer {
    package var map: ImpactMap
    package var layout: PackageLayout
    private var functionsByFile: [String: [Int]] = [:]

    package init(map: ImpactMap, layout: PackageLayout) {
        self.map = map
        self.layout = layout
        for (index, function) in map.functions.enumerated() where function.file < map.files.count {
            functionsByFile[map.files[function.file], default: []].append(index)
        }
    }

    /// Attributes that put a body into other modules' code (or inline it): editing it is not only a
    /// change to the function the map recorded.
    static let inliningAttributes: Set<String> = ["@inlinable", "@_transparent", "@_alwaysEmitIntoClient", "@inline"]

    package func analyze(_ changes: [FileChange]) -> ChangeImpact {
        var impact = ChangeImpact()
        for change in changes { classify(change, into: &impact) }
        return impact
    }

    func classify(_ change: FileChange, into impact: inout ChangeImpact) {
        let path = change.path
        if Self.isManifest(path) { return impact.add(ChangeEvidence(rule: .fullRun("\(path) changed"), path: path, line: 0)) }
        if case let .renamed(from) = change.kind {
            // The old path's tests and declarations, then the new file as added.
            classify(FileChange(path: from, kind: .deleted, oldText: change.oldText, newText: nil), into: &impact)
            return classify(FileChange(path: path, kind: .added, oldText: nil, newText: change.newText), into: &impact)
        }
        // A real target's folder only: `Tests/Fixtures/…` is no target (the folder convention would say
        // "Fixtures"), and tests may read it through #filePath.
        let target = layout.targets.first { path.hasPrefix($0.path + "/") }?.name
        guard let target, !Self.isDocumentation(path, insideTarget: true) else {
            if Self.isDocumentation(path, insideTarget: false) {
                return impact.add(ChangeEvidence(rule: .noTest("documentation"), path: path, line: 0))
            }
            return impact.add(ChangeEvidence(rule: .fullRun("\(path) is outside every target"), path: path, line: 0))
        }
        if layout.targets.contains(where: { $0.name == target && $0.isPlugin }) {
            return impact.add(ChangeEvidence(rule: .fullRun("\(path) is in the package plugin \(target)"), path: path, line: 0))
        }
        guard let language = SourceLanguage.of(path: path) else {
            markAllLines(change, in: &impact)
            return impact.add(ChangeEvidence(rule: .resource(target: target), path: path, line: 0))
        }
        let newTokens = change.newText.map { SourceTokens.tokens($0, language: language) }
        let oldTokens = change.oldText.map { SourceTokens.tokens($0, language: language) }
        if let oldTokens, let newTokens, oldTokens.map(\.text) == newTokens.map(\.text) {
            return impact.add(ChangeEvidence(rule: .noTest("comments or whitespace only"), path: path, line: 0))
        }
        if language == .swift, let oldTokens, let newTokens, ActiveCode.tokens(oldTokens) == ActiveCode.tokens(newTokens) {
            return impact.add(ChangeEvidence(rule: .noTest("code for another platform only (an inactive #if branch)"), path: path, line: 0))
        }
        let wholeFile: ChangeEvidence.Rule = SourceLanguage.isHeader(path: path) || language == .cFamily
            ? .header(target: target) : .declaration(target: target)
        guard let oldTokens, let newTokens, change.kind == .modified else {
            // Added, deleted, or an old text not known: the file's tests and every dependent target's.
            markAllLines(change, in: &impact)
            if change.kind != .added { impact.add(ChangeEvidence(rule: .structural, path: path, line: 0)) }
            return impact.add(ChangeEvidence(rule: wholeFile, path: path, line: 0))
        }
        if SourceLanguage.isHeader(path: path) {
            markChangedLines(TokenDiff.edits(oldTokens, newTokens), newTokens, path: path, in: &impact)
            impact.add(ChangeEvidence(rule: .structural, path: path, line: 0))
            return impact.add(ChangeEvidence(rule: .header(target: target), path: path, line: firstChangedLine(oldTokens, newTokens)))
        }
        let edits = TokenDiff.edits(oldTokens, newTokens)
        markChangedLines(edits, newTokens, path: path, in: &impact)
        let functions = (functionsByFile[path] ?? []).filter { recordedOn(oldTokens, map.functions[$0]) }
        let braces = Self.braces(of: functions.map { map.functions[$0] }, in: oldTokens)
        let bodies = zip(functions, braces).compactMap { f, b in b.map { (f, $0.open, $0.close) } }
        for edit in edits {
            let line = newLine(of: edit, newTokens, oldTokens)
            if let function = body(containing: edit, oldTokens, bodies) {
                impact.add(ChangeEvidence(rule: .bodyChanged(function: function), path: path, line: line))
                continue
            }
            impact.add(ChangeEvidence(rule: .structural, path: path, line: line))
            // An inlinable body's edit is the file's (its code may run inlined into another function of
            // the file, with the same counters), but no declaration changed: no other target's test is reached.
            if insideInlinableBody(edit, oldTokens, bodies) { continue }
            let words = oldTokens[edit.old].contains { $0.kind == .word } || newTokens[edit.new].contains { $0.kind == .word }
            // Literals alone stay with the file's tests only inside a function's region that runs each time
            // its value is needed (a stored property's initialiser, a default argument). Anywhere else a
            // literal is read without code of this file running: an enum's raw value, a `#if compiler(>=6)`,
            // a global's or a static's initialiser (run once per process, by whichever test came first).
            if words || language == .cFamily || !insideRecomputedRegion(edit, oldTokens, functions) {
                impact.add(ChangeEvidence(rule: wholeFile, path: path, line: line))
            }
        }
    }

    /// The innermost recorded function whose braces strictly enclose the edit (in old-token
    /// coordinates), unless it or a function around it is inlinable.
    /// `candidates`: functions with the token indexes of their braces.
    func body(containing edit: TokenEdit, _ tokens: [SourceToken], _ candidates: [(Int, open: Int, close: Int)]) -> Int? {
        // The edit's span: its old tokens, or the gap between two old tokens for an insertion.
        guard edit.old.lowerBound > 0 || !edit.old.isEmpty else { return nil }
        let first = edit.old.isEmpty ? edit.old.lowerBound - 1 : edit.old.lowerBound
        let last = edit.old.isEmpty ? edit.old.lowerBound : edit.old.upperBound - 1
        guard last < tokens.count else { return nil }
        var best: (index: Int, size: Int)?
        for (index, open, close) in candidates {
            // Strictly inside: edited tokens between the braces; an insertion may sit right after `{` or before `}`.
            let inside = edit.old.isEmpty ? first >= open && last <= close : first > open && last < close
            guard inside else { continue }
            if isInlinable(open, tokens) { return nil }
            if best.map({ close - open < $0.size }) ?? true { best = (index, close - open) }
        }
        return best?.index
    }

    /// Whether a recorded function with an inlining attribute encloses the edit between its braces.
    func insideInlinableBody(_ edit: TokenEdit, _ tokens: [SourceToken], _ candidates: [(Int, open: Int, close: Int)]) -> Bool {
        guard edit.old.lowerBound > 0 || !edit.old.isEmpty else { return false }
        let first = edit.old.isEmpty ? edit.old.lowerBound - 1 : edit.old.lowerBound
        let last = edit.old.isEmpty ? edit.old.lowerBound : edit.old.upperBound - 1
        guard last < tokens.count else { return false }
        return candidates.contains { _, open, close in
            (edit.old.isEmpty ? first >= open && last <= close : first > open && last < close) && isInlinable(open, tokens)
        }
    }

    /// Whether the edit's old tokens (or its insertion point) lie in the region of a recorded function
    /// that is not a one-time initialiser (Swift's `…WZ`: a global's or a static property's).
    func insideRecomputedRegion(_ edit: TokenEdit, _ tokens: [SourceToken], _ candidates: [Int]) -> Bool {
        guard !tokens.isEmpty else { return false }
        let first = tokens[min(edit.old.isEmpty ? max(edit.old.lowerBound - 1, 0) : edit.old.lowerBound, tokens.count - 1)]
        let last = tokens[min(edit.old.isEmpty ? edit.old.lowerBound : edit.old.upperBound - 1, tokens.count - 1)]
        return candidates.contains { index in
            let function = map.functions[index]
            return !function.name.hasSuffix("WZ") && function.start <= first.start && last.end <= function.end
        }
    }

    /// Each function's body braces as token indexes: its region starts at a `{` and ends after a `}`
    /// (nil for a region that is an expression: a default argument, a property initialiser).
    static func braces(of functions: [ImpactMap.Function], in tokens: [SourceToken]) -> [(open: Int, close: Int)?] {
        var starts: [SourcePosition: Int] = [:], ends: [SourcePosition: Int] = [:]
        for (index, token) in tokens.enumerated() where token.text == "{" || token.text == "}" {
            if token.text == "{" { starts[token.start] = index } else { ends[token.end] = index }
        }
        return functions.map { function in starts[function.start].flatMap { open in ends[function.end].map { (open, $0) } } }
    }

    /// Whether the declaration that `open` (a body's `{`) belongs to has an inlining attribute: the
    /// tokens back to the previous `{`, `}` or `;`.
    func isInlinable(_ open: Int, _ tokens: [SourceToken]) -> Bool {
        var index = open - 1
        while index >= 0, !["{", "}", ";"].contains(tokens[index].text) {
            if Self.inliningAttributes.contains(tokens[index].text) { return true }
            index -= 1
        }
        return false
    }

    /// The map's checksum still matches the old text: else the map was recorded on other text (a dirty
    /// tree, another checkout) and its regions cannot place the edit.
    func recordedOn(_ tokens: [SourceToken], _ function: ImpactMap.Function) -> Bool {
        ImpactMap.Function.checksumText(SourceTokens.checksum(tokens, from: function.start, to: function.end)) == function.checksum
    }

    func newLine(of edit: TokenEdit, _ new: [SourceToken], _ old: [SourceToken]) -> UInt32 {
        if !edit.new.isEmpty { return new[edit.new.lowerBound].start.line }
        if edit.new.lowerBound < new.count { return new[edit.new.lowerBound].start.line }
        return new.last?.end.line ?? old.last?.end.line ?? 0
    }

    func firstChangedLine(_ old: [SourceToken], _ new: [SourceToken]) -> UInt32 {
        TokenDiff.edits(old, new).first.map { newLine(of: $0, new, old) } ?? 0
    }

    /// New-side lines of each edit; for a deletion, the lines of the innermost `{ … }` around the gap
    /// (the enclosing body at the new side) and the lines next to it.
    func markChangedLines(_ edits: [TokenEdit], _ new: [SourceToken], path: String, in impact: inout ChangeImpact) {
        var lines = impact.changedLines[path] ?? []
        for edit in edits {
            if !edit.new.isEmpty {
                lines.formUnion(new[edit.new.lowerBound].start.line...new[edit.new.upperBound - 1].end.line)
                continue
            }
            let gap = edit.new.lowerBound
            if gap > 0 { lines.insert(new[gap - 1].end.line) }
            if gap < new.count { lines.insert(new[gap].start.line) }
            if let block = Self.enclosingBlock(gap, new) { lines.formUnion(new[block.open].start.line...new[block.close].end.line) }
        }
        impact.changedLines[path] = lines
    }

    func markAllLines(_ change: FileChange, in impact: inout ChangeImpact) {
        guard let text = change.newText else { return }
        let count = UInt32(text.split(separator: "\n", omittingEmptySubsequences: false).count)
        impact.changedLines[change.path, default: []].formUnion(1...max(1, count))
    }

    /// The innermost `{ … }` of `tokens` around the gap before `gap`.
    static func enclosingBlock(_ gap: Int, _ tokens: [SourceToken]) -> (open: Int, close: Int)? {
        var depth = 0, open: Int?
        for index in stride(from: gap - 1, through: 0, by: -1) {
            if tokens[index].text == "}" { depth += 1 } else if tokens[index].text == "{" {
                if depth == 0 { open = index; break }
                depth -= 1
            }
        }
        guard let open else { return nil }
        depth = 0
        for index in gap..<tokens.count {
            if tokens[index].text == "{" { depth += 1 } else if tokens[index].text == "}" {
                if depth == 0 { return (open, index) }
                depth -= 1
            }
        }
        return nil
    }

    /// Package.swift (and its versioned variants), Package.resolved.
    static func isManifest(_ path: String) -> Bool {
        path == "Package.resolved" || (path.hasPrefix("Package") && path.hasSuffix(".swift") && !path.contains("/"))
    }

    /// Files no build reads: documentation and repository settings. Inside a target only DocC catalogs
    /// (any other file there may be a resource).
    static func isDocumentation(_ path: String, insideTarget: Bool) -> Bool {
        let parts = path.split(separator: "/").map(String.init)
        if parts.contains(where: { $0.hasSuffix(".docc") }) { return true }
        if insideTarget { return false }
        let name = parts.last ?? ""
        let upper = name.uppercased()
        if parts.first == ".github" || parts.first == ".gitlab" { return true }
        if [".gitignore", ".gitattributes", ".editorconfig", ".spi.yml", ".swift-format", ".swiftformat", ".swiftlint.yml",
            ".mailmap", "CODEOWNERS", ".gitlab-ci.yml"].contains(name) { return true }
        for prefix in ["LICENSE", "LICENCE", "README", "CHANGELOG", "CONTRIBUTING", "CONTRIBUTORS", "NOTICE", "AUTHORS", "SECURITY",
                       "CODE_OF_CONDUCT"] where upper.hasPrefix(prefix) { return true }
        let ext = name.split(separator: ".").count > 1 ? String(name.split(separator: ".").last!).lowercased() : ""
        return ["md", "markdown", "rst", "adoc"].contains(ext)
    }
}
