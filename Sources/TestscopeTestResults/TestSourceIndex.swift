import Foundation

/// Which test source file declares each test: what SonarQube's test execution report is grouped by.
/// A Swift Testing result knows its file (the event stream's source location); an XCTest result on
/// Linux knows it only when a failure names it, so the test folders are scanned for the
/// `class X` / `struct X` / `enum X` / `actor X` declarations (X the XCTestCase class or the suite).
package struct TestSourceIndex: Sendable {
    /// Absolute paths of the files that declare each type name, per test module (folder).
    var declarations: [String: [(module: String?, file: String)]] = [:]
    /// The absolute test folders; a location inside one is a test file.
    package internal(set) var folders: [String] = []

    package init() {}

    /// Scans the `.swift` files under `testDirectories` (relative to `packageRoot`); unreadable files are skipped.
    package static func scan(packageRoot: URL, testDirectories: [String]) -> TestSourceIndex {
        var index = TestSourceIndex()
        let root = packageRoot.standardizedFileURL.path
        index.folders = testDirectories.map { root + "/" + $0 }
        var seen = Set<String>()
        for directory in testDirectories {
            let base = packageRoot.appendingPathComponent(directory)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            var files: [String] = []
            while let relative = walker.nextObject() as? String {
                if relative.hasSuffix(".swift") { files.append(relative) }
            }
            for relative in files.sorted() {
                let path = base.standardizedFileURL.path + "/" + relative
                guard seen.insert(path).inserted, let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
                let module = Self.module(of: path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path)
                for name in Self.declaredTypes(text) { index.declarations[name, default: []].append((module, path)) }
            }
        }
        return index
    }

    /// The file that declares `result`'s test (absolute), or nil when it cannot be told.
    package func file(for result: TestCaseResult) -> String? {
        if let declared = result.location?.file, isTestFile(declared) { return declared }
        if let named = result.issues.lazy.compactMap({ $0.location?.file }).first(where: isTestFile) { return named }
        guard let suite = result.suite else { return nil }
        // The innermost type first (`Outer.Inner`), then the outer ones.
        for name in suite.split(separator: ".").reversed().map(String.init) {
            guard let candidates = declarations[name] else { continue }
            if let same = candidates.first(where: { $0.module == result.module }) { return same.file }
            return candidates[0].file
        }
        return nil
    }

    func isTestFile(_ path: String) -> Bool { folders.contains { path.hasPrefix($0 + "/") } }

    /// The test module by SwiftPM's convention: the folder after `Tests/`.
    static func module(of relativePath: String) -> String? {
        let parts = relativePath.split(separator: "/")
        return parts.count >= 3 && parts[0] == "Tests" ? String(parts[1]) : nil
    }

    /// Type names declared in Swift source: `class X`, `final class X`, `struct X`, `enum X`, `actor X`
    /// (with any attributes, `@Suite` among them, and modifiers before them). Comments are not parsed:
    /// a type named in a comment only matters when no real declaration has that name.
    static func declaredTypes(_ text: String) -> [String] {
        var names: [String] = []
        let keywords: Set<Substring> = ["class", "struct", "enum", "actor"]
        // `class func`, `class var`: members, not types.
        let notNames: Set<Substring> = ["func", "var", "let", "subscript", "init", "override", "final", "private", "public"]
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" || $0 == "{" || $0 == "<" })
            if words.first?.hasPrefix("//") == true || words.first?.hasPrefix("*") == true { continue }
            for (i, word) in words.enumerated() where keywords.contains(word) && i + 1 < words.count {
                let name = words[i + 1]
                if notNames.contains(name) { break }
                guard let first = name.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first),
                      name.unicodeScalars.allSatisfy({ $0 == "_" || CharacterSet.alphanumerics.contains($0) }) else { continue }
                names.append(String(name))
                break
            }
        }
        return names
    }
}
