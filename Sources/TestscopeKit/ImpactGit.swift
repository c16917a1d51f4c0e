import Foundation
import TestscopeExecution
import TestscopeImpact

/// What test impact analysis asks git: the commits a map may come from, the files that differ from a
/// map's commit (committed, staged, unstaged, untracked but not ignored), and a dirty tree's files.
extension GitRepository {
    /// HEAD (or `ref`) and its ancestors, newest first (`git rev-list`), at most `limit`.
    func ancestors(of ref: String = "HEAD", limit: Int = 1000) throws -> [String] {
        guard let commit = try output(["rev-parse", "--verify", "--quiet", ref + "^{commit}"])?.trimmingCharacters(in: .whitespacesAndNewlines),
              !commit.isEmpty else { throw PullRequestError.unknownBase(ref: ref, shallow: isShallow) }
        return try checked(["rev-list", "--max-count=\(limit)", commit]).split(separator: "\n").map(String.init)
    }

    /// The package's folder in the repository, `""` or `sub/dir/`.
    func packageFolder(_ packageRoot: URL) -> String {
        let root = packageRoot.standardizedFileURL.resolvingSymlinksInPath().path
        let top = self.root.standardizedFileURL.resolvingSymlinksInPath().path
        return root == top || !root.hasPrefix(top + "/") ? "" : String(root.dropFirst(top.count + 1)) + "/"
    }

    /// `path` (repository-relative) relative to `packageRoot`; `../…` outside it.
    func packagePath(_ repoPath: String, packageRoot: URL) -> String {
        let inside = packageFolder(packageRoot)
        if repoPath.hasPrefix(inside) { return String(repoPath.dropFirst(inside.count)) }
        let depth = inside.split(separator: "/").count
        return String(repeating: "../", count: depth) + repoPath
    }

    /// Files whose working-tree text differs from HEAD (or that git does not track and does not ignore),
    /// package-relative, with their text's hash: a map recorded on a dirty tree keeps these.
    func dirtyFiles(packageRoot: URL, ignoring: [String] = []) throws -> [String: String] {
        var files: [String: String] = [:]
        let folder = packageFolder(packageRoot)
        for repoPath in try changedPaths(since: "HEAD", in: folder, ignoring: ignoring).map(\.path) + untracked(in: folder, ignoring: ignoring) {
            let text = (try? String(contentsOf: root.appendingPathComponent(repoPath), encoding: .utf8)) ?? ""
            files[packagePath(repoPath, packageRoot: packageRoot)] = ImpactMap.contentHash(text)
        }
        return files
    }

    /// The changes from `map`'s commit to the working tree, package-relative, with both texts; the
    /// files that were dirty when the map was recorded are compared with the hashes it kept.
    func fileChanges(since map: ImpactMap, packageRoot: URL, ignoring: [String] = []) throws -> [FileChange] {
        var changes: [String: FileChange] = [:]
        func current(_ repoPath: String) -> String? { try? String(contentsOf: root.appendingPathComponent(repoPath), encoding: .utf8) }
        func old(_ repoPath: String) throws -> String? { try output(["show", "\(map.commit):\(repoPath)"]) }
        let folder = packageFolder(packageRoot)
        for (status, path, from) in try changedPaths(since: map.commit, in: folder, ignoring: ignoring) {
            let local = packagePath(path, packageRoot: packageRoot)
            switch status {
            case "A": changes[local] = FileChange(path: local, kind: .added, oldText: nil, newText: current(path))
            case "D": changes[local] = FileChange(path: local, kind: .deleted, oldText: try old(path), newText: nil)
            case "R":
                let source = from ?? path
                changes[local] = FileChange(path: local, kind: .renamed(from: packagePath(source, packageRoot: packageRoot)),
                                            oldText: try old(source), newText: current(path))
            default: changes[local] = FileChange(path: local, kind: .modified, oldText: try old(path), newText: current(path))
            }
        }
        for path in try untracked(in: folder, ignoring: ignoring) {
            let local = packagePath(path, packageRoot: packageRoot)
            changes[local] = FileChange(path: local, kind: .added, oldText: nil, newText: current(path))
        }
        // Dirty when recorded: the map saw the hashed text, not the commit's.
        for (local, hash) in map.dirtyFiles {
            let text = try? String(contentsOf: packageRoot.appendingPathComponent(local), encoding: .utf8)
            if let text, ImpactMap.contentHash(text) == hash {
                changes[local] = nil
            } else if text != nil || changes[local]?.kind != .deleted {
                changes[local] = FileChange(path: local, kind: text == nil ? .deleted : .modified, oldText: map.dirtyTexts[local], newText: text)
            }
        }
        return changes.keys.sorted().map { changes[$0]! }
    }

    /// `git diff --name-status -M BASE`: the tracked files' changes from `base` to the working tree, in
    /// the package's folder (a monorepo's other packages are not this one's change; a local path
    /// dependency outside it is `selectAffected`'s full run).
    func changedPaths(since base: String, in folder: String, ignoring: [String] = []) throws -> [(status: String, path: String, from: String?)] {
        let fields = try checked(["diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-color", base, "--"] + Self.pathspec(folder, ignoring: ignoring))
            .split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        var result: [(String, String, String?)] = []
        var index = 0
        while index < fields.count, !fields[index].isEmpty {
            let status = String(fields[index].prefix(1))
            if status == "R" || status == "C", index + 2 < fields.count {
                result.append((status == "C" ? "A" : "R", fields[index + 2], status == "C" ? nil : fields[index + 1]))
                index += 3
            } else if index + 1 < fields.count {
                result.append((status, fields[index + 1], nil))
                index += 2
            } else {
                break
            }
        }
        return result
    }

    /// Files git neither tracks nor ignores, in the package's folder.
    func untracked(in folder: String, ignoring: [String] = []) throws -> [String] {
        try checked(["ls-files", "--others", "--exclude-standard", "-z", "--"] + Self.pathspec(folder, ignoring: ignoring))
            .split(separator: "\0").map(String.init)
    }

    /// The package's folder without what builds and reports write into it (SwiftPM's `.build` and
    /// `.swiftpm`, Testscope's `.testscope`, and `ignoring`: package-relative globs, such as the escaped
    /// `--output` folder and the user's `--ignore-change`): a package without a .gitignore would otherwise
    /// see its own build as a change. Git's glob magic: `*` stays within a folder, `**` crosses them.
    static func pathspec(_ folder: String, ignoring: [String]) -> [String] {
        [folder.isEmpty ? "." : folder] + ([".build", ".swiftpm", ".testscope"] + ignoring).map { ":(exclude,glob)" + escapingGlob(folder) + $0 }
    }

    /// A path as a glob that matches only itself.
    static func escapingGlob(_ path: String) -> String {
        path.reduce(into: "") { result, character in
            if "*?[]\\".contains(character) { result.append("\\") }
            result.append(character)
        }
    }
}
