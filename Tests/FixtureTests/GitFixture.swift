import Foundation
import TestscopeExecution
import XCTest

/// A fixture package copied fresh into a repository of its own and committed once ("base"): the recorded
/// commit P of the test impact tests, which then edit, commit and select.
struct GitFixture {
    static let packages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-profiles/packages")
    let package: URL

    /// A work folder kept between runs (its build is reused) and of this checkout only: two checkouts testing
    /// at once (a CI clone beside a working copy) must not share one.
    static func work(_ name: String) -> URL {
        let checkout = String(StableHash.hash(seed: 0, packages.path), radix: 16)
        return FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(checkout)")
    }

    /// `sample-profiles/packages/<name>` into `work/<name>` (its build folders left out; `ignoreBuild`: with a
    /// .gitignore of `.build*`, else none, as in a package whose own build must not count as a change).
    init(_ name: String, in work: URL, ignoreBuild: Bool) throws {
        package = try Self.copy(name, into: work)
        if ignoreBuild { try ".build*\n".write(to: package.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8) }
        try git("init", "-q")
        try git("add", "-A")
        try git("commit", "-q", "-m", "base")
    }

    /// A package a test wrote itself (the test runs git in it).
    init(existing package: URL) { self.package = package }

    /// A fresh copy of `sample-profiles/packages/<name>` at `work/<name>`, without its build folders.
    static func copy(_ name: String, into work: URL) throws -> URL {
        let fm = FileManager.default
        let package = work.appendingPathComponent(name)
        try? fm.removeItem(at: package)
        try fm.createDirectory(at: work, withIntermediateDirectories: true)
        try fm.copyItem(at: packages.appendingPathComponent(name), to: package)
        for entry in try fm.contentsOfDirectory(atPath: package.path) where entry.hasPrefix(".build") {
            try fm.removeItem(at: package.appendingPathComponent(entry))
        }
        return package
    }

    /// git in the package's repository, as a user without any git configuration.
    func git(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let git = try XCTUnwrap(TestscopeExecution.Toolchain.findInPath("git", environment: ProcessInfo.processInfo.environment))
        let result = try ProcessRunner.run(git, ["-C", package.path, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"] + arguments)
        XCTAssertTrue(result.succeeded, "git \(arguments.joined(separator: " ")): \(result.stderrText)", file: file, line: line)
    }
}
