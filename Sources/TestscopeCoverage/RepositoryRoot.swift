import Foundation

/// The folder CI tools resolve report paths against: the git repository's top level when the package
/// lies in one (GitLab, SonarQube and diff-cover match paths relative to it), else the package root.
package enum RepositoryRoot {
    /// The nearest folder at or above `packageRoot` holding `.git` (a folder, or the file of a worktree
    /// or submodule); found on the file system, without running git, so it also works where git is absent.
    package static func find(from packageRoot: URL) -> URL {
        var folder = packageRoot.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) { return folder }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return packageRoot.standardizedFileURL }
            folder = parent
        }
    }

    /// `path` relative to `root` when inside it, else unchanged (absolute).
    package static func relative(_ path: String, to root: String) -> String {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
