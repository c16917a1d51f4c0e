import Foundation

/// The lines a change added to one file, as git reports them.
package struct ChangedFile: Equatable, Sendable {
    /// Absolute path in the working tree (the repository root joined with git's path).
    package var path: String
    /// The path relative to the repository root, as git names it.
    package var repoPath: String
    /// The path before a rename (git's rename detection), nil when not renamed.
    package var renamedFrom: String?
    /// Added by the change (no version at the base).
    package var isNew: Bool
    /// The added (`+`) lines, as ranges in the new version.
    package var addedLines: [ClosedRange<UInt32>]

    package init(path: String, repoPath: String, renamedFrom: String? = nil, isNew: Bool = false, addedLines: [ClosedRange<UInt32>]) {
        self.path = path
        self.repoPath = repoPath
        self.renamedFrom = renamedFrom
        self.isNew = isNew
        self.addedLines = addedLines
    }
}

/// What changed between a base and the working state: the files git lists, with their added lines.
package struct ChangeSet: Equatable, Sendable {
    /// The ref the user gave (`origin/main`).
    package var base: String
    /// The merge base of `base` and HEAD the diff starts from.
    package var mergeBase: String
    /// Uncommitted (staged and unstaged) changes are included.
    package var includesUncommitted: Bool
    package var files: [ChangedFile]

    package init(base: String, mergeBase: String, includesUncommitted: Bool, files: [ChangedFile]) {
        self.base = base
        self.mergeBase = mergeBase
        self.includesUncommitted = includesUncommitted
        self.files = files
    }
}

/// How one changed line counts in diff coverage.
package enum ChangedLineClass: String, Sendable, CaseIterable {
    /// No count (not executable, or blank / comment only: Swift bodies have no gap regions).
    case notExecutable
    /// Ran, and every region on it ran.
    case covered
    /// Ran, but a region on it never did (what a line-only tool calls covered).
    case partial
    /// Never ran, or its count is unknown (a negative counter expression).
    case uncovered
    /// Excluded by `testscope:ignore` markers.
    case excluded
}

/// The diff coverage of one changed file that the report measures.
public struct DiffFileCoverage: Equatable, Sendable {
    /// Relative to the package root, as in the rest of the report.
    public var path: String
    public var repoPath: String
    public var renamedFrom: String?
    public var isNew: Bool
    /// Every added line, as ranges.
    public var changedLines: [ClosedRange<UInt32>]
    /// Executable changed lines; covered = covered + partial.
    public var lines: CoverageRatio
    /// Regions starting on changed lines.
    public var regions: CoverageRatio
    public var uncoveredLines: [ClosedRange<UInt32>]
    public var partialLines: [ClosedRange<UInt32>]
    public var excludedLines: [UInt32]

    /// How many changed lines never ran.
    public var uncoveredCount: Int { uncoveredLines.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }
    public var partialCount: Int { partialLines.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }
}

/// The coverage of the lines a change added (`--diff-base`).
public struct DiffCoverage: Equatable, Sendable {
    public var base: String
    public var mergeBase: String
    public var includesUncommitted: Bool
    /// Changed files the report measures, in path order.
    public var files: [DiffFileCoverage]
    /// Changed files under the package that the report does not measure (tests, manifests, filtered out).
    public var unmeasuredFiles: [String]
    /// Executable changed lines: covered = covered + partial.
    public var lines: CoverageRatio
    public var regions: CoverageRatio
    public var uncoveredLines: Int
    public var partialLines: Int
    public var changedLines: Int

    /// No executable line changed: the diff gates pass (a distinct state, never "100 %").
    public var hasExecutableChanges: Bool { lines.total > 0 }

    /// One file's changed lines against its line table, excluded lines and region starts.
    static func classify(_ change: ChangedFile, in file: FileCoverage) -> DiffFileCoverage {
        var positions: [UInt32: Int] = [:]
        for i in file.lines.indices { positions[file.lines.lineNumber(at: i)] = i }
        let excluded = Set(file.excludedLines)
        var classes: [(UInt32, ChangedLineClass)] = []
        var changed = Set<UInt32>()
        for range in change.addedLines {
            for line in range {
                changed.insert(line)
                classes.append((line, lineClass(line, file: file, position: positions[line], excluded: excluded)))
            }
        }
        var ratio = CoverageRatio()
        for (_, kind) in classes where kind == .covered || kind == .partial || kind == .uncovered {
            ratio += CoverageRatio(covered: kind == .uncovered ? 0 : 1, total: 1)
        }
        var regions = CoverageRatio()
        for region in file.regionStarts where changed.contains(region.line) {
            regions += CoverageRatio(covered: region.covered ? 1 : 0, total: 1)
        }
        return DiffFileCoverage(
            path: file.relativePath, repoPath: change.repoPath, renamedFrom: change.renamedFrom, isNew: change.isNew,
            changedLines: change.addedLines, lines: ratio, regions: regions,
            uncoveredLines: ranges(classes, .uncovered), partialLines: ranges(classes, .partial),
            excludedLines: classes.filter { $0.1 == .excluded }.map(\.0))
    }

    /// The class of one changed line.
    package static func lineClass(_ line: UInt32, file: FileCoverage, position: Int?, excluded: Set<UInt32>) -> ChangedLineClass {
        if excluded.contains(line) { return .excluded }
        guard let position else { return .notExecutable }
        if let source = file.source, Int(line) <= source.lineCount, isBlankOrComment(Substring(source.line(Int(line)))) { return .notExecutable }
        let record = file.lines[position]
        if !record.isCovered { return .uncovered }
        return record.isPartial ? .partial : .covered
    }

    /// A line with nothing but whitespace or a comment (`//`, or a line of a `/* … */` block).
    static func isBlankOrComment(_ text: Substring) -> Bool {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        return trimmed.isEmpty || trimmed.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
            || trimmed.hasPrefix("//") || trimmed.hasPrefix("/*") || trimmed.hasPrefix("*")
    }

    /// Runs of consecutive changed lines of one class.
    static func ranges(_ classes: [(UInt32, ChangedLineClass)], _ kind: ChangedLineClass) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        for (line, c) in classes where c == kind {
            if let last = result.last, last.upperBound + 1 == line { result[result.count - 1] = last.lowerBound...line } else { result.append(line...line) }
        }
        return result
    }

}

/// `DiffCoverage.classify` one file at a time, as a streamed report's files come (each file's
/// changed lines are needed by its page, and its line table is let go after it is written).
package struct DiffClassifier {
    private let changes: ChangeSet
    private let root: String
    /// The changes with added lines, by their path and by their path after the equivalences.
    private var byPath: [String: [Int]] = [:]
    private var matched = Set<Int>()
    private var files: [DiffFileCoverage] = []

    package init(_ changes: ChangeSet, packageRoot: String, equivalences: [PathEquivalence] = []) {
        self.changes = changes
        root = packageRoot.hasSuffix("/") ? packageRoot : packageRoot + "/"
        for (i, change) in changes.files.enumerated() where !change.addedLines.isEmpty {
            byPath[change.path, default: []].append(i)
            let mapped = PathEquivalence.apply(equivalences, to: change.path)
            if mapped != change.path { byPath[mapped, default: []].append(i) }
        }
    }

    /// The file's changed lines, when the change touches it.
    package mutating func classify(_ file: FileCoverage) -> DiffFileCoverage? {
        guard let indices = byPath[file.path], let first = indices.first(where: { !matched.contains($0) }) else { return nil }
        matched.insert(first)
        let classified = DiffCoverage.classify(changes.files[first], in: file)
        files.append(classified)
        return classified
    }

    /// The whole diff: the files classified, and the changed files under the package that none matched.
    package func result() -> DiffCoverage {
        let unmeasured = changes.files.indices.filter { !changes.files[$0].addedLines.isEmpty && !matched.contains($0) }
            .map { changes.files[$0].path }.filter { $0.hasPrefix(root) }.map { String($0.dropFirst(root.count)) }
        var result = DiffCoverage(base: changes.base, mergeBase: changes.mergeBase, includesUncommitted: changes.includesUncommitted,
                                  files: files.sorted { $0.path < $1.path }, unmeasuredFiles: unmeasured.sorted(),
                                  lines: CoverageRatio(), regions: CoverageRatio(), uncoveredLines: 0, partialLines: 0, changedLines: 0)
        for file in result.files {
            result.lines += file.lines
            result.regions += file.regions
            result.uncoveredLines += file.uncoveredCount
            result.partialLines += file.partialCount
            result.changedLines += file.changedLines.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 }
        }
        return result
    }
}
