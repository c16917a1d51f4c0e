import TestscopeCoverage

/// A selective run's coverage of the tests it skips: their lines and counts as the recording run's
/// per-test coverage gives them, moved onto the current files. A skipped test ran no changed code (that
/// is why it is skipped), so it runs the same lines now, where its unchanged tokens now are.
package enum CoverageCarry {
    /// `recorded`: the per-test coverage stored with the map of `commit`; `skipped`: the ids of the tests
    /// the run skips; `changes`: the files that differ from the map's commit (`FileChange`). Nil when
    /// nothing is skipped.
    package static func carried(_ stored: RecordedCoverage, commit: String, skipped: Set<String>, changes: [FileChange]) -> CarriedCoverage? {
        let recorded = stored.lines
        let contexts = Set(recorded.contexts.indices.filter { $0 > 0 && skipped.contains(recorded.contexts[$0].id) })
        guard !contexts.isEmpty else { return nil }
        // Recorded path → (the path now, how its lines moved); a deleted file, or one whose recorded text
        // is not known (dirty when recorded), carries nothing.
        var moved: [String: (path: String, lines: [UInt32: [UInt32]]?)] = [:]
        var deleted = Set<String>()
        for change in changes {
            switch change.kind {
            case .added: continue
            case .deleted: (moved[change.path], _) = ((change.path, [:]), deleted.insert(change.path))
            case .modified: moved[change.path] = (change.path, LineMover.lines(from: change.oldText, to: change.newText, path: change.path))
            case let .renamed(from): moved[from] = (change.path, LineMover.lines(from: change.oldText, to: change.newText, path: change.path))
            }
        }
        var lines: [String: [UInt32: UInt64]] = [:], outside: [String: [UInt32: UInt64]] = [:]
        for file in recorded.files {
            let target = moved[file.path]
            for run in file.runs where run.context == 0 || contexts.contains(run.context) {
                for (line, count) in run.lineCounts {
                    // Lines moved through the diff; a line with no matched token is dropped.
                    let now = target.map { $0.lines?[line] ?? [] } ?? [line]
                    for new in now {
                        if run.context == 0 {
                            outside[target?.path ?? file.path, default: [:]][new, default: 0] &+= count ?? 1
                        } else {
                            lines[target?.path ?? file.path, default: [:]][new, default: 0] &+= count ?? 1
                        }
                    }
                }
            }
        }
        let tests = Set(contexts.map { recorded.contexts[$0].id }).count
        var carried = CarriedCoverage(commit: commit, tests: tests, lines: lines, outsideTests: outside)
        // Functions by name in the file they are in now (a skipped test's functions are unchanged, so
        // their regions are the same, in the same order); a deleted file's are dropped.
        if let regions = stored.regions {
            for context in contexts.sorted() where context < regions.runs.count {
                for run in regions.runs[context] {
                    let recordedPath = regions.files[run.file], target = moved[recordedPath]
                    if deleted.contains(recordedPath) { continue }
                    carried.addFunction(path: target?.path ?? recordedPath, name: regions.names[run.name], count: run.count, regions: run.regions,
                                        executed: PerTestCoverage.ranges(run.executed).flatMap { $0.map(Int.init) })
                }
            }
        }
        return carried
    }
}

/// Where a file's lines went between two texts: each old line to the new lines of its tokens that the
/// token diff matched (comments and whitespace are not tokens, so they move nothing).
package enum LineMover {
    /// Nil when either text is unknown or the file is not source code: nothing of it can be placed.
    package static func lines(from old: String?, to new: String?, path: String) -> [UInt32: [UInt32]]? {
        guard let old, let new, let language = SourceLanguage.of(path: path) else { return nil }
        let a = SourceTokens.tokens(old, language: language), b = SourceTokens.tokens(new, language: language)
        var result: [UInt32: Set<UInt32>] = [:]
        func match(_ i: Int, _ j: Int) {
            let (x, y) = (a[i], b[j])
            // A token over several lines (a multi-line string) moves each of its lines when it spans as many.
            let span = x.end.line - x.start.line
            let same = span == y.end.line - y.start.line
            for k in 0...(same ? span : 0) { result[x.start.line + k, default: []].insert(y.start.line + k) }
        }
        var (i, j) = (0, 0)
        for edit in TokenDiff.edits(a, b) + [TokenEdit(old: a.count..<a.count, new: b.count..<b.count)] {
            while i < edit.old.lowerBound, j < edit.new.lowerBound { match(i, j); i += 1; j += 1 }
            (i, j) = (edit.old.upperBound, edit.new.upperBound)
        }
        var moved = result.mapValues { $0.sorted() }
        // llvm counts every line inside a region, blank and comment lines too, which have no token: such a
        // line moves with the matched lines around it when as many lines separate them in both texts.
        let tokenLines = Set(a.flatMap { $0.start.line...$0.end.line })
        let anchors = [(UInt32(0), UInt32(0))] + moved.keys.sorted().map { ($0, moved[$0]![0]) }
            + [(UInt32(lineCount(old) + 1), UInt32(lineCount(new) + 1))]
        var next = 1
        for line in UInt32(1)...UInt32(lineCount(old)) where !tokenLines.contains(line) {
            while next < anchors.count - 1, anchors[next].0 < line { next += 1 }
            let (before, after) = (anchors[next - 1], anchors[next])
            if after.0 > line, after.1 > before.1, after.0 - before.0 == after.1 - before.1 { moved[line] = [before.1 + (line - before.0)] }
        }
        return moved
    }

    private static func lineCount(_ text: String) -> Int { text.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 } }
}
