import Foundation
import TestscopeExecution
import TestscopeRun
import TestscopeTestResults

/// The test binary built with Testscope's entry point, and the package's tests.
public struct FlakyTestBinary: Sendable {
    public var binary: URL
    public var scratchPath: URL
    /// Every test (`--list-tests` of both libraries), before `--filter`/`--skip`; Swift Testing's in its
    /// serial order.
    public var tests: TestList
    /// Swift Testing tests' ranks in Swift Testing's serial order (see `SwiftTestingOrder`).
    public var swiftTestingRanks: [String: Int]

    public init(binary: URL, scratchPath: URL, tests: TestList, swiftTestingRanks: [String: Int] = [:]) {
        self.binary = binary
        self.scratchPath = scratchPath
        self.tests = tests
        self.swiftTestingRanks = swiftTestingRanks
    }
}

/// Builds the test product once, with the generated entry point, into a scratch folder of its own
/// (default `<package>/.build/testscope-flaky`), so the package's own build is not invalidated.
public struct FlakyBuilder {
    public var swift: URL
    public var packageRoot: URL
    public var scratchPath: URL
    /// `-c`, and the arguments after `--`.
    public var extraBuildArguments: [String]
    public var environment: [String: String]

    public init(swift: URL, packageRoot: URL, scratchPath: URL, extraBuildArguments: [String] = [],
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.swift = swift
        self.packageRoot = packageRoot
        self.scratchPath = scratchPath
        self.extraBuildArguments = extraBuildArguments
        self.environment = environment
    }

    /// The default scratch folder: inside the package's `.build`, which every package already ignores
    /// (a `.build-testscope-flaky` beside it showed as untracked in `git status` of packages that
    /// ignore only `/.build`), next to `run`'s `.build/testscope`.
    public static func defaultScratchPath(packageRoot: URL) -> URL {
        packageRoot.appendingPathComponent(".build/testscope-flaky")
    }

    /// The entry point's path inside the scratch folder.
    public var entryPointFile: URL { scratchPath.appendingPathComponent("testscope-entry-point/main.swift") }

    /// Writes the entry point (only when it changed, so an unchanged package is not rebuilt), builds,
    /// and lists the tests. `log` receives the build output; `echo` also shows it raw (on stderr), `onLine`
    /// hands each line to a live view.
    public func build(log: LineLog?, echo: Bool, onLine: (@Sendable (String) -> Void)? = nil) throws -> FlakyTestBinary {
        #if os(macOS)
        throw FlakinessError.unsupportedPlatform
        #else
        try writeEntryPoint(EntryPointSource.source(packageName: try packageName()))
        let common = ["--package-path", packageRoot.path, "--scratch-path", scratchPath.path] + extraBuildArguments
        let build = try ProcessRunner.stream(
            swift, ["build", "--build-tests", "--experimental-test-entry-point-path", entryPointFile.path] + common,
            environment: environment, echo: false, onLine: { line in
                log?.write(line)
                if echo { StandardStreams.write(STDERR_FILENO, line + "\n") }
                onLine?(line)
            })
        guard build.succeeded else {
            throw FlakinessError.buildFailed(scratchPath: scratchPath.path, log: log?.path ?? "the output above")
        }
        let bin = try BuildArtifacts.binPath(swift: swift, buildArguments: common, environment: environment)
        guard let binary = BuildArtifacts.testBinary(in: bin) else {
            throw FlakinessError.noTests(package: packageRoot.path)
        }
        let listed = try Self.listTests(binary: binary, environment: environment,
                                        stream: scratchPath.appendingPathComponent("testscope-swift-testing-list.jsonl"))
        return FlakyTestBinary(binary: binary, scratchPath: scratchPath, tests: listed.tests, swiftTestingRanks: listed.ranks)
        #endif
    }

    /// Writes `source` as the entry point, only when it changed (so an unchanged package is not rebuilt).
    @discardableResult
    public func writeEntryPoint(_ source: String) throws -> URL {
        try FileManager.default.createDirectory(at: entryPointFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        if (try? String(contentsOf: entryPointFile, encoding: .utf8)) != source {
            try AtomicFileWriter.write(source, to: entryPointFile)
        }
        return entryPointFile
    }

    /// The package's name, from `swift package dump-package`; kept beside the entry point with the
    /// manifest's size and date, so an unchanged manifest is not loaded again.
    public func packageName() throws -> String {
        let manifest = packageRoot.appendingPathComponent("Package.swift")
        let attributes = try? FileManager.default.attributesOfItem(atPath: manifest.path)
        let stamp = "\(attributes?[.size] ?? 0) \((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        let cache = entryPointFile.deletingLastPathComponent().appendingPathComponent("package-name")
        if let cached = try? String(contentsOf: cache, encoding: .utf8), let newline = cached.firstIndex(of: "\n"),
           cached[..<newline] == stamp {
            return String(cached[cached.index(after: newline)...])
        }
        let name = try dumpedPackageName()
        try? FileManager.default.createDirectory(at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? AtomicFileWriter.write(stamp + "\n" + name, to: cache)
        return name
    }

    func dumpedPackageName() throws -> String {
        // In the flaky build folder: under `swift package testscope flaky` the package's `.build` is locked and
        // dump-package there would wait forever (seen: 5 minutes, until the plugin was killed).
        let dump = try ProcessRunner.run(swift, ["package", "--package-path", packageRoot.path, "--scratch-path", scratchPath.path, "dump-package"],
                                         environment: environment)
        guard dump.succeeded, let object = try? JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any],
              let name = object["name"] as? String else {
            throw FlakinessError.buildFailed(scratchPath: scratchPath.path, log: "`swift package dump-package` failed: \(dump.stderrText.split(separator: "\n").first ?? "")")
        }
        return name
    }

    /// `--list-tests` of XCTest and of Swift Testing, run on the built binary; Swift Testing's tests
    /// sorted in its serial order, learnt from the test records it writes to `stream`.
    public static func listTests(binary: URL, environment: [String: String], stream: URL) throws -> (tests: TestList, ranks: [String: Int]) {
        var env = environment
        env.removeValue(forKey: EntryPointSource.orderFileVariable)
        env.removeValue(forKey: EntryPointSource.orderVariable)
        try? FileManager.default.removeItem(at: stream)
        defer { try? FileManager.default.removeItem(at: stream) }
        var list: TestList
        do {
            list = try TestLister.list(binary: binary, environment: env, swiftTestingEvents: stream)
        } catch let TestResultsError.testListFailed(detail) {
            throw FlakinessError.testBinaryFailed(binary: binary.path, detail: detail)
        }
        let ranks = SwiftTestingOrder.ranks(fromListStream: (try? String(contentsOf: stream, encoding: .utf8)) ?? "")
        // Ranked tests in Swift Testing's serial order (what `swift test --no-parallel` does), then any others as listed.
        let listed = Dictionary(uniqueKeysWithValues: list.swiftTesting.enumerated().map { ($0.element, $0.offset) })
        list.swiftTesting.sort { (ranks[$0] ?? Int.max, listed[$0]!) < (ranks[$1] ?? Int.max, listed[$1]!) }
        return (list, ranks)
    }
}
