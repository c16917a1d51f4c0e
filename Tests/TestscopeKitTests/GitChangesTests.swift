import Foundation
import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeKit
import XCTest

/// `GitRepository` on real git output: unusual file names (git C-quotes them), renames with edits,
/// deleted files and hunks that only delete.
final class GitChangesTests: XCTestCase {
    var repo: URL!

    override func setUpWithError() throws {
        repo = FileManager.default.temporaryDirectory.appendingPathComponent("git-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: repo) }

    func git(_ arguments: [String]) throws {
        let git = try XCTUnwrap(Toolchain.findInPath("git", environment: ProcessInfo.processInfo.environment))
        let result = try ProcessRunner.run(git, ["-C", repo.path, "-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments)
        XCTAssertTrue(result.succeeded, result.stderrText)
    }

    func write(_ name: String, _ lines: [String]) throws {
        try (lines.joined(separator: "\n") + "\n").write(to: repo.appendingPathComponent(name), atomically: false, encoding: .utf8)
    }

    func testAddedLinesRenamesAndQuotedNamesFromRealGitOutput() throws {
        let odd = "odd \"name\"\tü.swift"
        let body = (1...20).map { "let v\($0) = \($0)" }
        try write(odd, body)
        try write("old.swift", body)
        try write("with space.swift", body)
        try write("gone.swift", ["let gone = 0"])
        try write("shrinks.swift", body)
        try git(["init", "-q", "-b", "main", "."])
        try git(["add", "."])
        try git(["commit", "-qm", "base"])
        try git(["checkout", "-qb", "feature"])
        try write(odd, Array(body[..<5]) + ["let added = 1"] + Array(body[5...]))
        try git(["mv", "old.swift", "new.swift"])
        try write("new.swift", body + ["let tail = 2", "let tail2 = 3"])
        try git(["rm", "-q", "gone.swift"])
        try write("shrinks.swift", Array(body.dropLast(3)))
        try write("fresh.swift", ["let a = 1"])
        try write("with space.swift", ["let first = 0"] + body)
        try git(["add", "."])
        try git(["commit", "-qm", "change"])

        let repository = try GitRepository.containing(repo, environment: ProcessInfo.processInfo.environment)
        let changes = try repository.changes(since: "main", uncommitted: false)
        let byPath = Dictionary(uniqueKeysWithValues: changes.files.map { ($0.repoPath, $0) })
        XCTAssertEqual(byPath[odd]?.addedLines, [6...6])
        XCTAssertEqual(byPath["with space.swift"]?.addedLines, [1...1])
        XCTAssertEqual(byPath["new.swift"]?.renamedFrom, "old.swift")
        XCTAssertEqual(byPath["new.swift"]?.addedLines, [21...22])
        XCTAssertEqual(byPath["fresh.swift"]?.isNew, true)
        XCTAssertEqual(byPath["fresh.swift"]?.addedLines, [1...1])
        XCTAssertEqual(byPath["shrinks.swift"]?.addedLines, [])
        XCTAssertNil(byPath["gone.swift"], "deleted files are left out")
        XCTAssertTrue(byPath[odd]?.path.hasSuffix("/" + odd) ?? false)
        XCTAssertFalse(try repository.isAncestorOfHead("0000000000000000000000000000000000000000"))
    }
}
