import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports

/// The pull-request options of `run` and `report`: `--diff-base` and the baseline ratchet.
public struct PullRequestSettings: Sendable, Equatable {
    /// `--diff-base REF`: classify the lines changed since the merge base of REF and HEAD.
    public var diffBase: String?
    /// `--diff-include-uncommitted`: also the working tree's staged and unstaged changes.
    public var includeUncommitted = false
    /// `--baseline FILE`.
    public var baseline: URL?
    /// `--update-baseline`: write FILE from this report instead of comparing.
    public var updateBaseline = false
    /// `--baseline-tolerance`: percentage points the total line coverage may drop.
    public var baselineTolerance: Double = 0

    public init() {}

    public var isEmpty: Bool { diffBase == nil && baseline == nil }
}

/// What `--diff-base` and `--baseline` need from git and the baseline file, resolved before any
/// work (a wrong ref or a broken baseline is reported before the tests run).
struct PullRequestContext {
    var settings: PullRequestSettings
    var packageRoot: URL
    var repository: GitRepository?
    var changes: ChangeSet?
    var baseline: CoverageBaseline?
    /// Said once the report is built (files with uncommitted changes that the diff leaves out).
    var warnings: [Diagnostic] = []

    static func prepare(_ settings: PullRequestSettings, packageRoot: URL, environment: [String: String]) throws -> PullRequestContext? {
        guard !settings.isEmpty else { return nil }
        var context = PullRequestContext(settings: settings, packageRoot: packageRoot)
        if let base = settings.diffBase {
            let repository = try GitRepository.containing(packageRoot, environment: environment)
            context.repository = repository
            context.changes = context.mapped(try repository.changes(since: base, uncommitted: settings.includeUncommitted))
            if !settings.includeUncommitted, let dirty = try repository.output(["diff", "--name-only", "HEAD", "--", packageRoot.path]),
               !dirty.isEmpty {
                let count = dirty.split(separator: "\n").count
                context.warnings.append(.warning("\(count) file\(count == 1 ? " has" : "s have") uncommitted changes "
                    + "that --diff-base leaves out (the diff is HEAD's, the coverage the working tree's); "
                    + "commit them or pass --diff-include-uncommitted"))
            }
        } else if settings.baseline != nil {
            // Only for the commit and the ancestry warning: a baseline works outside git too.
            context.repository = try? GitRepository.containing(packageRoot, environment: environment)
        }
        if let file = settings.baseline, !settings.updateBaseline { context.baseline = try load(file) }
        return context
    }

    /// Reads and checks a baseline file.
    static func load(_ file: URL) throws -> CoverageBaseline {
        guard let data = FileManager.default.contents(atPath: file.path) else { throw PullRequestError.baselineMissing(path: file.path) }
        let baseline: CoverageBaseline
        do {
            baseline = try JSONDecoder().decode(CoverageBaseline.self, from: data)
        } catch DecodingError.dataCorrupted {
            throw PullRequestError.baselineInvalid(path: file.path, detail: "not valid JSON")
        } catch DecodingError.keyNotFound(let key, _) {
            throw PullRequestError.baselineInvalid(path: file.path, detail: "no \"\(key.stringValue)\" key")
        } catch {
            throw PullRequestError.baselineInvalid(path: file.path, detail: "a key has the wrong type")
        }
        guard baseline.schema == CoverageBaseline.schemaURL else {
            throw PullRequestError.baselineInvalid(path: file.path, detail: "schema \(baseline.schema), expected \(CoverageBaseline.schemaURL)")
        }
        return baseline
    }

    /// The package folder inside the repository, resolved like git resolves it ("" at the root).
    var packagePrefix: String? {
        guard let repository else { return nil }
        let root = repository.root.resolvingSymlinksInPath().path, package = packageRoot.resolvingSymlinksInPath().path
        if package == root { return "" }
        return package.hasPrefix(root + "/") ? String(package.dropFirst(root.count + 1)) + "/" : nil
    }

    /// git's paths onto the package root as the report names it (the two may differ by symlinks).
    func mapped(_ changes: ChangeSet) -> ChangeSet {
        guard let prefix = packagePrefix else { return changes }
        var result = changes
        let root = packageRoot.path.hasSuffix("/") ? packageRoot.path : packageRoot.path + "/"
        for i in result.files.indices where result.files[i].repoPath.hasPrefix(prefix) {
            result.files[i].path = root + result.files[i].repoPath.dropFirst(prefix.count)
        }
        return result
    }

    /// Current package-relative path → the baseline's, from git's rename detection.
    var renames: [String: String] {
        guard let changes, let prefix = packagePrefix else { return [:] }
        var renames: [String: String] = [:]
        for file in changes.files {
            guard let old = file.renamedFrom, old.hasPrefix(prefix), file.repoPath.hasPrefix(prefix) else { continue }
            renames[String(file.repoPath.dropFirst(prefix.count))] = String(old.dropFirst(prefix.count))
        }
        return renames
    }

    /// Classifies the changed lines of each file as the report's files are written (`--diff-base`).
    func diffClassifier(equivalences: [PathEquivalence]) -> DiffClassifier? {
        changes.map { DiffClassifier($0, packageRoot: packageRoot.path, equivalences: equivalences) }
    }

    /// Sets the model's diff (classified by `diffClassifier`'s classifier as the files were written)
    /// and its comparison with the baseline, or writes the baseline.
    func apply(to report: inout CoverageReport, diff: DiffCoverage?, terminal: Terminal) throws {
        for warning in warnings { terminal.emit(warning) }
        report.diff = diff
        guard let file = settings.baseline else { return }
        if settings.updateBaseline {
            let written = CoverageBaseline(report: report, package: packageRoot.lastPathComponent, commit: try repository?.head(),
                                           generator: "testscope \(TestscopeVersion.current)")
            try AtomicFileWriter.write(try written.encoded(), to: file)
            terminal.note("baseline written to \(file.path) (\(report.files.count) files)")
            return
        }
        guard let baseline else { return }
        let renames = self.renames
        if !baseline.files.isEmpty, !report.files.isEmpty,
           !report.files.contains(where: { baseline.files[renames[$0.relativePath] ?? $0.relativePath] != nil }) {
            throw PullRequestError.baselineOtherPackage(path: file.path, package: baseline.package, files: baseline.files.count)
        }
        var comparison = baseline.compare(with: report, renames: renames, tolerance: settings.baselineTolerance)
        if let old = baseline.toolchain, let now = report.metadata.toolchain, old != now {
            comparison.warnings.append(.warning("the baseline was made with another toolchain (\(old), now \(now)); "
                + "region mapping may differ: re-create it with --update-baseline"))
        }
        if let commit = baseline.commit, let repository, !(try repository.isAncestorOfHead(commit)) {
            comparison.warnings.append(.warning("the baseline's commit \(commit.prefix(12)) is not an ancestor of HEAD "
                + "(or not fetched); it may describe other code"))
        }
        report.baseline = comparison
    }
}
