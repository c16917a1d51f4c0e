import Foundation

/// Decides which files count. By default: only the package's own sources under its root, not its
/// tests (`Tests/` and test targets), not `.build*` folders (dependency checkouts, the generated test
/// runner and discovered-tests files), nothing outside the root. `--include` globs bring files back,
/// `--exclude` globs remove them; both match paths relative to the package root.
package struct SourceFilter: Sendable {
    package var root: String
    package var testDirectories: [String]
    package var include: [Glob]
    package var exclude: [Glob]

    package init(root: String, testDirectories: [String] = ["Tests"], include: [Glob] = [], exclude: [Glob] = []) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        self.testDirectories = testDirectories
        self.include = include
        self.exclude = exclude
    }

    /// The path relative to the root, or nil when it lies outside.
    package func relativePath(_ path: String) -> String? {
        let standardized = Self.normalized(path)
        if root == "/" { return String(standardized.dropFirst()) }
        guard standardized.hasPrefix(root + "/") else { return nil }
        return String(standardized.dropFirst(root.count + 1))
    }

    /// Removes `.` and `..` components and repeated slashes, without touching the file system
    /// (symlinks are not resolved: the paths are llvm's, and may not exist here).
    package static func normalized(_ path: String) -> String {
        // Compared as characters: a `.` joined by a combining mark is a name, not a `.`.
        guard path.contains("/.") || path.contains("//") else { return path }
        var parts: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            parts.append(component)
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    package func includes(_ path: String) -> Bool {
        let relative = relativePath(path)
        let subject = relative ?? path
        if exclude.contains(where: { $0.matches(subject) }) { return false }
        if include.contains(where: { $0.matches(subject) }) { return true }
        if !include.isEmpty { return false }
        guard let relative else { return false }
        return Self.isOwnSource(relative, testDirectories: testDirectories)
    }

    /// Not under a test folder, `.build*`, `.swiftpm` or a `.derived` folder.
    static func isOwnSource(_ relative: String, testDirectories: [String]) -> Bool {
        let components = relative.split(separator: "/")
        if components.contains(where: { $0.hasPrefix(".build") || $0 == ".swiftpm" || $0.hasSuffix(".derived") }) {
            return false
        }
        for dir in testDirectories where relative == dir || relative.hasPrefix(dir + "/") { return false }
        return true
    }
}

/// Remembers the filter's answer per path: an export names the same files thousands of times.
package final class CachedSourceFilter {
    package let filter: SourceFilter
    private var answers: [String: Bool] = [:]

    package init(_ filter: SourceFilter) { self.filter = filter }

    package func includes(_ path: String) -> Bool {
        if let known = answers[path] { return known }
        let answer = filter.includes(path)
        answers[path] = answer
        return answer
    }
}

/// A path glob: `*` and `?` within one path component, `**` across components. A pattern
/// without `/` also matches the file name alone.
package struct Glob: Sendable, Equatable {
    package let pattern: String
    private let parts: [Substring]

    package init(_ pattern: String) throws {
        let trimmed = pattern.hasPrefix("./") ? String(pattern.dropFirst(2)) : pattern
        guard !trimmed.isEmpty, !trimmed.contains("***") else { throw CoverageError.invalidGlob(pattern: pattern) }
        self.pattern = trimmed
        self.parts = trimmed.split(separator: "/", omittingEmptySubsequences: true)
    }

    package func matches(_ path: String) -> Bool {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        if !pattern.contains("/"), let name = components.last, Self.matchComponent(Array(parts[0]), Array(name)) {
            return true
        }
        return Self.match(parts[...], components[...])
    }

    private static func match(_ pattern: ArraySlice<Substring>, _ path: ArraySlice<Substring>) -> Bool {
        guard let head = pattern.first else { return path.isEmpty }
        if head == "**" {
            let rest = pattern.dropFirst()
            var p = path
            while true {
                if match(rest, p) { return true }
                if p.isEmpty { return false }
                p = p.dropFirst()
            }
        }
        guard let first = path.first, matchComponent(Array(head), Array(first)) else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// `*` and `?` matching within one component.
    static func matchComponent(_ p: [Character], _ s: [Character]) -> Bool {
        var pi = 0, si = 0, star = -1, mark = 0
        while si < s.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == s[si]) { pi += 1; si += 1 }
            else if pi < p.count && p[pi] == "*" { star = pi; mark = si; pi += 1 }
            else if star >= 0 { pi = star + 1; mark += 1; si = mark }
            else { return false }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
