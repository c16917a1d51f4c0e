import Foundation
import TestscopeExecution
import TestscopeImpact
@testable import TestscopeKit
import XCTest

/// The changes test selection sees, from real git: committed, staged, unstaged, untracked (not ignored),
/// deleted and renamed files of the package's folder only, and a map recorded on a dirty tree.
final class ImpactGitTests: XCTestCase {
    var repo: URL!
    var package: URL { repo.appendingPathComponent("pkg") }

    override func setUpWithError() throws {
        repo = FileManager.default.temporaryDirectory.appendingPathComponent("impact-git-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("pkg/Sources/A"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("other"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: repo) }

    func git(_ arguments: String...) throws {
        let git = try XCTUnwrap(Toolchain.findInPath("git", environment: ProcessInfo.processInfo.environment))
        let result = try ProcessRunner.run(git, ["-C", repo.path, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"] + arguments)
        XCTAssertTrue(result.succeeded, result.stderrText)
    }

    func write(_ path: String, _ text: String) throws {
        try text.write(to: repo.appendingPathComponent(path), atomically: false, encoding: .utf8)
    }

    func testChangesSinceAMapRecordedOnADirtyTree() throws {
        for name in ["a", "b", "c", "d", "old", "dirty1", "dirty2"] { try write("pkg/Sources/A/\(name).swift", "let \(name) = 1\n") }
        try write("pkg/.gitignore", "*.log\n")
        try write("other/x.swift", "let x = 1\n")
        try git("init", "-q", "-b", "main", ".")
        try git("add", ".")
        try git("commit", "-qm", "base")
        let repository = try GitRepository.containing(package, environment: ProcessInfo.processInfo.environment)
        let base = try XCTUnwrap(try repository.head())

        // Recorded on a dirty tree: two files differ from the commit (another folder's change is not the package's).
        try write("pkg/Sources/A/dirty1.swift", "let dirty1 = 2\n")
        try write("pkg/Sources/A/dirty2.swift", "let dirty2 = 2\n")
        try write("other/x.swift", "let x = 2\n")
        let dirty = try repository.dirtyFiles(packageRoot: package)
        XCTAssertEqual(dirty, ["Sources/A/dirty1.swift": ImpactMap.contentHash("let dirty1 = 2\n"), "Sources/A/dirty2.swift": ImpactMap.contentHash("let dirty2 = 2\n")])
        let environment = ImpactEnvironment(toolchain: "t", configuration: "debug", buildArguments: [], manifestHash: "", resolvedHash: "")
        let map = ImpactMap(commit: base, tree: nil, dirtyFiles: dirty, environment: environment, files: [], functions: [], outsideTests: [], tests: [])

        try write("pkg/Sources/A/a.swift", "let a = 2\n")
        try git("commit", "-qam", "committed")
        try write("pkg/Sources/A/b.swift", "let b = 2\n")
        try git("add", "pkg/Sources/A/b.swift")
        try write("pkg/Sources/A/c.swift", "let c = 2\n")
        try FileManager.default.removeItem(at: repo.appendingPathComponent("pkg/Sources/A/d.swift"))
        try git("mv", "pkg/Sources/A/old.swift", "pkg/Sources/A/new.swift")
        try write("pkg/Sources/A/e.swift", "let e = 1\n")
        try write("pkg/build.log", "ignored\n")
        try write("pkg/Sources/A/dirty2.swift", "let dirty2 = 3\n")

        let changes = try repository.fileChanges(since: map, packageRoot: package)
        XCTAssertEqual(changes, [
            FileChange(path: "Sources/A/a.swift", kind: .modified, oldText: "let a = 1\n", newText: "let a = 2\n"),
            FileChange(path: "Sources/A/b.swift", kind: .modified, oldText: "let b = 1\n", newText: "let b = 2\n"),
            FileChange(path: "Sources/A/c.swift", kind: .modified, oldText: "let c = 1\n", newText: "let c = 2\n"),
            FileChange(path: "Sources/A/d.swift", kind: .deleted, oldText: "let d = 1\n", newText: nil),
            // Dirty when recorded and changed since: the recorded text is not known.
            FileChange(path: "Sources/A/dirty2.swift", kind: .modified, oldText: nil, newText: "let dirty2 = 3\n"),
            FileChange(path: "Sources/A/e.swift", kind: .added, oldText: nil, newText: "let e = 1\n"),
            FileChange(path: "Sources/A/new.swift", kind: .renamed(from: "Sources/A/old.swift"), oldText: "let old = 1\n", newText: "let old = 1\n"),
        ])
        XCTAssertEqual(try repository.ancestors(), [try XCTUnwrap(try repository.head()), base])
        XCTAssertThrowsError(try repository.ancestors(of: "no-such-ref")) {
            XCTAssertEqual($0 as? PullRequestError, .unknownBase(ref: "no-such-ref", shallow: false))
        }
    }
}
