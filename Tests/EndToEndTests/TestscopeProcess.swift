import Foundation
import TestscopeExecution
import XCTest

/// Runs the built `testscope` executable (SwiftPM builds it beside the test bundle).
enum TestscopeProcess {
    /// The repository root, from this file's location.
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let samples = repoRoot.appendingPathComponent("sample-profiles")

    /// The folder SwiftPM put this test bundle and the `testscope` executable in.
    static var binDirectory: URL {
        var url = Bundle.main.bundleURL
        while !url.pathComponents.isEmpty, url.lastPathComponent != "debug", url.lastPathComponent != "release" {
            if FileManager.default.isExecutableFile(atPath: url.deletingLastPathComponent().appendingPathComponent("testscope").path) {
                return url.deletingLastPathComponent()
            }
            url.deleteLastPathComponent()
        }
        return url
    }

    static var executable: URL { binDirectory.appendingPathComponent("testscope") }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Non-empty stderr lines.
        var errorLines: [String] { stderr.split(separator: "\n").map(String.init).filter { !$0.isEmpty } }
    }

    /// Runs testscope with `arguments` in `directory`, with colours off and a non-interactive environment.
    static func run(_ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:],
                    removing removed: [String] = [], program: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = program ?? executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        for (key, value) in extra { environment[key] = value }
        for key in removed { environment[key] = nil }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outBox = Locked(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { let data = out.fileHandleForReading.readDataToEndOfFile(); outBox.withLock { $0 = data }; group.leave() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let outData = outBox.withLock { $0 }
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a bash command line (for process substitution, `<(cmd)`) the same way.
    static func runShell(_ command: String, in directory: URL? = nil) throws -> Result {
        try run(["-c", command], in: directory, program: URL(fileURLWithPath: "/bin/bash"))
    }

    /// The trimmed standard output of a command found on PATH, or nil when it fails.
    static func output(of arguments: [String]) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 ? text : nil
    }

    /// Runs `arguments` through `timeout -k 10 LIMIT` (a hung child fails the test instead of hanging
    /// it) with stdout and stderr into the file `log` (a chatty child never fills a pipe); NO_COLOR set.
    static func runLogged(_ arguments: [String], limit: Int, in directory: URL? = nil, environment extra: [String: String] = [:],
                          log: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", "-k", "10", String(limit)] + arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        (process.standardOutput, process.standardError, process.standardInput) = (handle, handle, FileHandle.nullDevice)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: log, encoding: .utf8))
    }

    /// The test binary a `run` used (it builds into `.build/testscope`): coverage.json lists it among its inputs.
    static func testBinary(ofRunIn output: URL) throws -> URL {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("coverage.json"))) as? [String: Any]
        let inputs = (json?["inputs"] as? [String]) ?? []
        return URL(fileURLWithPath: try XCTUnwrap(inputs.first { $0.hasSuffix("PackageTests.xctest") }, "no test binary in \(inputs)"))
    }

    /// A copy of a fixture package for tests that write into it (git, `.testscope`, CI steps), at one path
    /// per checkout that keeps its `.build`: the copy is built once per test run, not once per test. Each
    /// call removes what the last test left (everything but the sources and `.build`); a test process's
    /// first call copies the sources afresh. The copy is shared: a test's other files go elsewhere. One test
    /// process per checkout at a time (as `.ci/run` runs them; not `swift test --parallel`).
    static func fixtureCopy(_ name: String) throws -> URL {
        let files = FileManager.default
        let checkout = repoRoot.path.utf8.reduce(UInt64(5381)) { ($0 &* 33) ^ UInt64($1) }
        let copy = files.temporaryDirectory.appendingPathComponent("testscope-fixture-copies-\(String(checkout, radix: 36))/\(name)")
        let source = samples.appendingPathComponent("packages/\(name)")
        let sources = Set(try files.contentsOfDirectory(atPath: source.path).filter { !$0.hasPrefix(".") })
        let first = copiedFixtures.withLock { $0.insert(name).inserted }
        try files.createDirectory(at: copy, withIntermediateDirectories: true)
        for entry in try files.contentsOfDirectory(atPath: copy.path) where entry != ".build" && (first || !sources.contains(entry)) {
            try files.removeItem(at: copy.appendingPathComponent(entry))
        }
        for entry in sources where !files.fileExists(atPath: copy.appendingPathComponent(entry).path) {
            try files.copyItem(at: source.appendingPathComponent(entry), to: copy.appendingPathComponent(entry))
        }
        return copy
    }

    private static let copiedFixtures = Locked<Set<String>>([])

    /// `testscope run` with `arguments` (without `--output`) once per test process, its output folder copied
    /// to `output` for each caller: tests that read the same run share its build and its tests. The runs are
    /// kept in one folder per checkout, emptied by a process's first call (one test process at a time, as above).
    static func sharedRun(_ arguments: [String], output: URL) throws -> Result {
        let files = FileManager.default
        let (folder, result) = try sharedRuns.withLock { runs -> (URL, Result) in
            if let done = runs.first(where: { $0.arguments == arguments }) { return (done.folder, done.result) }
            let checkout = repoRoot.path.utf8.reduce(UInt64(5381)) { ($0 &* 33) ^ UInt64($1) }
            let root = files.temporaryDirectory.appendingPathComponent("testscope-shared-runs-\(String(checkout, radix: 36))")
            if runs.isEmpty { try? files.removeItem(at: root) }
            let folder = root.appendingPathComponent("\(runs.count)")
            let result = try run(arguments + ["--output", folder.path])
            runs.append((arguments, folder, result))
            return (folder, result)
        }
        try files.copyItem(at: folder, to: output)
        return result
    }

    private static let sharedRuns = Locked<[(arguments: [String], folder: URL, result: Result)]>([])

    /// A fresh temporary folder, removed by the caller's teardown.
    static func temporaryDirectory(_ name: String = "testscope-tests") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `swift test list` of a package `testscope run` built (in its build folder, `.build/testscope`):
    /// XCTest specifiers and Swift Testing ids. The listing process writes its profile into a
    /// temporary folder, not into the package.
    static func listedTests(_ package: URL) throws -> Set<String> {
        let profiles = try temporaryDirectory("list-profiles")
        defer { try? FileManager.default.removeItem(at: profiles) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["LLVM_PROFILE_FILE=\(profiles.path)/%p.profraw", "swift", "test", "list", "--skip-build",
                             "--enable-code-coverage", "--package-path", package.path,
                             "--scratch-path", package.appendingPathComponent(".build/testscope").path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("[") && !$0.contains(" ") && $0.contains(".") })
    }

    /// The root recorded in a sample's meta.json (exports hold absolute paths from the recording machine).
    static func recordedRoot(_ package: String) throws -> String {
        let meta = samples.appendingPathComponent("recorded/\(package)/meta.json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: meta)) as? [String: Any]
        return try XCTUnwrap(object?["packageRoot"] as? String)
    }

    /// Arguments that map a recorded export onto the fixture package in this checkout.
    static func recordedReportArguments(_ package: String) throws -> [String] {
        let root = samples.appendingPathComponent("packages/\(package)").path
        return ["report", "--export", samples.appendingPathComponent("recorded/\(package)/coverage.json").path,
                "--package-path", root, "--path-equivalence", "\(try recordedRoot(package)),\(root)"]
    }
}
