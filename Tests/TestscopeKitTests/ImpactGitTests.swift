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

    /// A package whose Package.resolved is ignored (most libraries'): a fresh checkout, or one after
    /// `git clean -x`, has none before its build, while the map was recorded where it existed. The
    /// environment resolves it first, so the same pins give the same hash (replayed on swift-algorithms:
    /// without this, the recording's hash and the next selection's "" made every selection a full run).
    func testTheResolutionHashIsThePinsEvenWhenPackageResolvedIsNotThereYet() throws {
        let swift = try XCTUnwrap(Toolchain.findInPath("swift", environment: ProcessInfo.processInfo.environment))
        let dependency = repo.appendingPathComponent("other")
        try write("other/Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"Dep\", "
            + "products: [.library(name: \"Dep\", targets: [\"Dep\"])], targets: [.target(name: \"Dep\")])\n")
        try FileManager.default.createDirectory(at: dependency.appendingPathComponent("Sources/Dep"), withIntermediateDirectories: true)
        try write("other/Sources/Dep/Dep.swift", "public let dep = 1\n")
        let gitTool = try XCTUnwrap(Toolchain.findInPath("git", environment: ProcessInfo.processInfo.environment))
        for arguments in [["init", "-q", "."], ["add", "."], ["commit", "-qm", "dep"], ["tag", "1.0.0"]] {
            let result = try ProcessRunner.run(gitTool, ["-C", dependency.path, "-c", "user.name=t", "-c", "user.email=t@example.com",
                                                         "-c", "commit.gpgsign=false"] + arguments)
            XCTAssertTrue(result.succeeded, result.stderrText)
        }
        try write("pkg/Package.swift", "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"A\", "
            + "dependencies: [.package(url: \"\(dependency.path)\", from: \"1.0.0\")], "
            + "targets: [.target(name: \"A\", dependencies: [.product(name: \"Dep\", package: \"other\")])])\n")
        try write("pkg/Sources/A/a.swift", "import Dep\nlet a = dep\n")
        let scratch = repo.appendingPathComponent("scratch")
        func environment() -> ImpactEnvironment {
            ImpactRecording.environment(swift: swift, packageRoot: package, configuration: nil, buildArguments: [], scratchPath: scratch)
        }
        let recorded = environment()
        let resolved = package.appendingPathComponent("Package.resolved")
        let pins = try String(contentsOf: resolved, encoding: .utf8)
        XCTAssertEqual(recorded.resolvedHash, ImpactMap.contentHash(pins))
        // The dependency is resolved in the build folder; Package.resolved is gone, as in a fresh checkout.
        try FileManager.default.removeItem(at: resolved)
        XCTAssertEqual(environment().resolvedHash, recorded.resolvedHash)
        XCTAssertNil(recorded.mismatch(environment()))
    }
}
