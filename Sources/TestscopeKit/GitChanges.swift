import Foundation
import TestscopeCoverage
import TestscopeExecution

/// Errors of `--diff-base` and `--baseline`: bad input (65), each one line saying what to do.
public enum PullRequestError: LocalizedError, Equatable {
    case gitNotFound
    case notARepository(path: String)
    case unknownBase(ref: String, shallow: Bool)
    case noMergeBase(ref: String, shallow: Bool)
    case gitFailed(arguments: String, message: String)
    case baselineMissing(path: String)
    case baselineInvalid(path: String, detail: String)
    case baselineOtherPackage(path: String, package: String, files: Int)

    public var errorDescription: String? {
        switch self {
        case .gitNotFound:
            return "--diff-base needs git, which is not on PATH; install git or leave out --diff-base"
        case let .notARepository(path):
            return "\(path) is not inside a git repository, so --diff-base has no history to compare with; run from a clone or leave out --diff-base"
        case let .unknownBase(ref, shallow):
            let fetch = shallow ? "this is a shallow clone: `git fetch --unshallow` (or `git fetch --deepen=200 origin \(ref.split(separator: "/").last ?? "main")`), or check out with fetch-depth: 0"
                : "fetch it (e.g. `git fetch origin main` for origin/main) or check the name"
            return "--diff-base \(ref) is not a commit in this repository; \(fetch)"
        case let .noMergeBase(ref, shallow):
            let fetch = shallow ? "the clone is shallow and the merge base was not fetched: `git fetch --deepen=200` (repeat) or `git fetch --unshallow`"
                : "the histories are unrelated; pass a base on the same history"
            return "no merge base between \(ref) and HEAD; \(fetch)"
        case let .gitFailed(arguments, message):
            return "git \(arguments) failed: \(message)"
        case let .baselineMissing(path):
            return "baseline \(path) does not exist; write it with --update-baseline (on the main branch) first"
        case let .baselineInvalid(path, detail):
            return "baseline \(path) is not a Testscope baseline (\(detail)); re-create it with --update-baseline"
        case let .baselineOtherPackage(path, package, files):
            return "baseline \(path) is from another package (\(package): none of its \(files) files are in this report); pass this package's baseline or re-create it with --update-baseline"
        }
    }
}

extension PullRequestError: ClassifiedError {
    public var errorClass: ErrorClass { .badInput }
}

/// Runs git in the package's repository (through `ProcessRunner`) and parses its diffs.
package struct GitRepository: Sendable {
    package let git: URL
    /// `git rev-parse --show-toplevel`: the folder git's paths are relative to.
    package let root: URL

    /// The repository holding `directory`.
    package static func containing(_ directory: URL, environment: [String: String]) throws -> GitRepository {
        guard let git = Toolchain.findInPath("git", environment: environment) else { throw PullRequestError.gitNotFound }
        let result = try ProcessRunner.run(git, ["-C", directory.path, "rev-parse", "--show-toplevel"])
        let top = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.succeeded, !top.isEmpty else { throw PullRequestError.notARepository(path: directory.path) }
        return GitRepository(git: git, root: URL(fileURLWithPath: top))
    }

    /// Runs `git -C root arguments`; nil when git exits with a failure.
    func output(_ arguments: [String]) throws -> String? {
        let result = try ProcessRunner.run(git, ["-C", root.path, "-c", "core.quotePath=false"] + arguments)
        return result.succeeded ? result.stdoutText : nil
    }

    func checked(_ arguments: [String]) throws -> String {
        let result = try ProcessRunner.run(git, ["-C", root.path, "-c", "core.quotePath=false"] + arguments)
        guard result.succeeded else {
            throw PullRequestError.gitFailed(arguments: arguments.joined(separator: " "),
                                             message: result.stderrText.split(separator: "\n").first.map(String.init) ?? "exit status \(result.status)")
        }
        return result.stdoutText
    }

    var isShallow: Bool { (try? output(["rev-parse", "--is-shallow-repository"]))??.hasPrefix("true") ?? false }

    /// The commit HEAD points at (nil in a repository without commits).
    package func head() throws -> String? {
        try output(["rev-parse", "--verify", "--quiet", "HEAD"])?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `commit` is known here and an ancestor of HEAD.
    package func isAncestorOfHead(_ commit: String) throws -> Bool {
        try output(["merge-base", "--is-ancestor", commit, "HEAD"]) != nil
    }

    /// The lines changed between the merge base of `base` and HEAD (and the working tree, with `uncommitted`).
    package func changes(since base: String, uncommitted: Bool) throws -> ChangeSet {
        guard let commit = try output(["rev-parse", "--verify", "--quiet", base + "^{commit}"]), !commit.isEmpty else {
            throw PullRequestError.unknownBase(ref: base, shallow: isShallow)
        }
        guard let mergeBase = try output(["merge-base", commit.trimmingCharacters(in: .whitespacesAndNewlines), "HEAD"])?
            .trimmingCharacters(in: .whitespacesAndNewlines), !mergeBase.isEmpty else {
            throw PullRequestError.noMergeBase(ref: base, shallow: isShallow)
        }
        var arguments = ["diff", "-M", "--unified=0", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", mergeBase]
        if !uncommitted { arguments.append("HEAD") }
        let files = Self.parse(diff: try checked(arguments), root: root.path)
        return ChangeSet(base: base, mergeBase: mergeBase, includesUncommitted: uncommitted, files: files)
    }

    /// The files of a unified diff (`-U0`): added lines from the hunk headers, renames, new and deleted files.
    package static func parse(diff: String, root: String) -> [ChangedFile] {
        var files: [ChangedFile] = []
        var current: ChangedFile?
        var renamedFrom: String?, isNew = false, deleted = false
        func finish() {
            if var file = current, !deleted {
                file.renamedFrom = file.renamedFrom ?? renamedFrom
                file.isNew = isNew
                files.append(file)
            }
            (current, renamedFrom, isNew, deleted) = (nil, nil, false, false)
        }
        func file(_ repoPath: String) -> ChangedFile {
            ChangedFile(path: (root.hasSuffix("/") ? root : root + "/") + repoPath, repoPath: repoPath, addedLines: [])
        }
        for line in diff.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("diff --") {
                finish()
            } else if line.hasPrefix("new file mode") {
                isNew = true
            } else if line.hasPrefix("deleted file mode") {
                deleted = true
            } else if line.hasPrefix("rename from ") {
                renamedFrom = unquote(line.dropFirst("rename from ".count))
            } else if line.hasPrefix("rename to ") {
                current = file(unquote(line.dropFirst("rename to ".count)))
            } else if line.hasPrefix("+++ ") {
                // git ends the line with a tab when the name has a space (as GNU diff does).
                let path = unquote(line.hasSuffix("\t") ? line.dropFirst(4).dropLast() : line.dropFirst(4))
                if path == "/dev/null" { deleted = true } else if path.hasPrefix("b/") { current = file(String(path.dropFirst(2))) }
            } else if line.hasPrefix("@@ "), current != nil, let added = hunkAddedLines(line) {
                current!.addedLines.append(added)
            }
        }
        finish()
        return files
    }

    /// `@@ -a,b +c,d @@`: lines c … c+d−1 (d defaults to 1; 0 adds nothing).
    static func hunkAddedLines(_ header: Substring) -> ClosedRange<UInt32>? {
        guard let plus = header.split(separator: " ").first(where: { $0.hasPrefix("+") }) else { return nil }
        let parts = plus.dropFirst().split(separator: ",")
        guard let start = parts.first.flatMap({ UInt32($0) }) else { return nil }
        let count = parts.count > 1 ? UInt32(parts[1]) ?? 0 : 1
        return count == 0 ? nil : start...(start + count - 1)
    }

    /// A path as git prints it: C-quoted (`"a\tb"`, octal bytes) when it has unusual characters.
    static func unquote(_ text: Substring) -> String {
        guard text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 else { return String(text) }
        var bytes: [UInt8] = []
        var chars = Array(text.dropFirst().dropLast().utf8)[...]
        while let c = chars.popFirst() {
            guard c == UInt8(ascii: "\\"), let next = chars.popFirst() else { bytes.append(c); continue }
            switch next {
            case UInt8(ascii: "n"): bytes.append(10)
            case UInt8(ascii: "t"): bytes.append(9)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = UInt32(next - 48)
                for _ in 0..<2 { if let d = chars.first, (48...55).contains(d) { value = value * 8 + UInt32(d - 48); chars.removeFirst() } }
                bytes.append(UInt8(truncatingIfNeeded: value))
            default: bytes.append(next)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
