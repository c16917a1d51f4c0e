#if os(Linux)
import Foundation
import XCTest

/// `run`, `report` and `merge` start again with larger glibc thread caches (`Sources/CTestscopeStart/Start.c`); the
/// processes they start must not inherit the setting, and a user's own `GLIBC_TUNABLES` wins.
final class MallocTuningTests: XCTestCase {
    /// A `swift` that records its own environment and its parent's (the testscope that started it,
    /// as it was exec'd), then fails, so that `run` stops at its first build.
    private func recordingToolchain() throws -> (folder: URL, package: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("malloc-tuning-\(UUID().uuidString)")
        let bin = folder.appendingPathComponent("bin")
        let package = folder.appendingPathComponent("pkg")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let swift = bin.appendingPathComponent("swift")
        try """
        #!/bin/sh
        env > "\(folder.path)/child.env"
        tr '\\0' '\\n' < /proc/$PPID/environ > "\(folder.path)/parent.env"
        cat /proc/$PPID/comm > "\(folder.path)/parent.comm"
        exit 1

        """.write(to: swift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        // The llvm tools `run` looks for beside `swift`: the real ones.
        let realSwift = try XCTUnwrap(Self.realSwift, "no swift on PATH")
        for tool in ["llvm-cov", "llvm-profdata"] {
            try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent(tool),
                                                       withDestinationURL: realSwift.deletingLastPathComponent().appendingPathComponent(tool))
        }
        try "// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: \"P\")\n"
            .write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return (folder, package)
    }

    private static var realSwift: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").lazy.map { URL(fileURLWithPath: String($0)).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }?.resolvingSymlinksInPath()
    }

    private func lines(_ url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func testTheWorkRunsWithLargerCachesAndTheChildrenDoNotInheritThem() throws {
        let (folder, package) = try recordingToolchain()
        let result = try TestscopeProcess.run(["run"], in: package,
                                              environment: ["TESTSCOPE_SWIFT": folder.appendingPathComponent("bin/swift").path],
                                              removing: ["GLIBC_TUNABLES", "TESTSCOPE_MALLOC_TUNED"])
        XCTAssertNotEqual(result.status, 0, "the fake swift fails the build")
        let parent = try lines(folder.appendingPathComponent("parent.env"))
        let child = try lines(folder.appendingPathComponent("child.env"))
        XCTAssertTrue(parent.contains("GLIBC_TUNABLES=glibc.malloc.tcache_count=1000"), "\(parent.filter { $0.hasPrefix("GLIBC") })")
        // Started again from /proc/self/exe, it keeps its name (ps, top, pkill).
        XCTAssertEqual(try lines(folder.appendingPathComponent("parent.comm")), ["testscope"])
        XCTAssertFalse(child.contains { $0.hasPrefix("GLIBC_TUNABLES=") || $0.hasPrefix("TESTSCOPE_MALLOC_TUNED=") },
                       "\(child.filter { $0.hasPrefix("GLIBC") || $0.hasPrefix("TESTSCOPE_MALLOC") })")
    }

    func testAUsersOwnTunablesAreKeptAndPassedOn() throws {
        let (folder, package) = try recordingToolchain()
        let own = "glibc.malloc.check=0"
        let result = try TestscopeProcess.run(["run"], in: package, environment: [
            "TESTSCOPE_SWIFT": folder.appendingPathComponent("bin/swift").path, "GLIBC_TUNABLES": own,
        ], removing: ["TESTSCOPE_MALLOC_TUNED"])
        XCTAssertNotEqual(result.status, 0, "the fake swift fails the build")
        let parent = try lines(folder.appendingPathComponent("parent.env"))
        let child = try lines(folder.appendingPathComponent("child.env"))
        XCTAssertEqual(parent.filter { $0.hasPrefix("GLIBC_TUNABLES=") }, ["GLIBC_TUNABLES=\(own)"])
        XCTAssertFalse(parent.contains { $0.hasPrefix("TESTSCOPE_MALLOC_TUNED=") }, "started once, not again")
        XCTAssertEqual(child.filter { $0.hasPrefix("GLIBC_TUNABLES=") }, ["GLIBC_TUNABLES=\(own)"])

        // A mark set by hand (as if this were the restarted process) does not take the user's tunables away.
        let marked = try TestscopeProcess.run(["run"], in: package, environment: [
            "TESTSCOPE_SWIFT": folder.appendingPathComponent("bin/swift").path, "GLIBC_TUNABLES": own, "TESTSCOPE_MALLOC_TUNED": "x",
        ])
        XCTAssertNotEqual(marked.status, 0, "the fake swift fails the build")
        let markedChild = try lines(folder.appendingPathComponent("child.env"))
        XCTAssertEqual(markedChild.filter { $0.hasPrefix("GLIBC_TUNABLES=") }, ["GLIBC_TUNABLES=\(own)"])
        XCTAssertFalse(markedChild.contains { $0.hasPrefix("TESTSCOPE_MALLOC_TUNED=") })
    }
}
#endif
