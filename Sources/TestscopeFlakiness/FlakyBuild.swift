import Foundation
import TestscopeExecution
import TestscopeRun
import TestscopeTestResults

/// The test binary built with Testscope's entry point, and the package's tests.
package struct FlakyTestBinary: Sendable {
    package var binary: URL
    package var scratchPath: URL
    /// Every test (`--list-tests` of both libraries), before `--filter`/`--skip`; Swift Testing's in its
    /// serial order.
    package var tests: TestList
    /// Swift Testing tests' ranks in Swift Testing's serial order (see `SwiftTestingOrder`).
    package var swiftTestingRanks: [String: Int]

    package init(binary: URL, scratchPath: URL, tests: TestList, swiftTestingRanks: [String: Int] = [:]) {
        self.binary = binary
        self.scratchPath = scratchPath
        self.tests = tests
        self.swiftTestingRanks = swiftTestingRanks
    }
}

/// Builds the test product once as Testscope's one build (`InstrumentedBuild`: coverage, atomic counters,
/// the generated entry point; default folder `<package>/.build/testscope`, shared with `run`), so the
/// package's own build is not invalidated and `flaky` after `run` builds nothing.
package struct FlakyBuilder {
    package var swift: URL
    package var packageRoot: URL
    package var scratchPath: URL
    /// `-c`, and the arguments after `--`.
    package var extraBuildArguments: [String]
    package var environment: [String: String]

    package init(swift: URL, packageRoot: URL, scratchPath: URL, extraBuildArguments: [String] = [],
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.swift = swift
        self.packageRoot = packageRoot
        self.scratchPath = scratchPath
        self.extraBuildArguments = extraBuildArguments
        self.environment = environment
    }

    /// Writes the entry point, builds, and lists the tests. `log` receives the build output; `echo` also
    /// shows it raw (on stderr), `onLine` hands each line to a live view.
    package func build(log: LineLog?, echo: Bool, onLine: (@Sendable (String) -> Void)? = nil) throws -> FlakyTestBinary {
        #if os(macOS)
        throw FlakinessError.unsupportedPlatform
        #else
        let instrumented = InstrumentedBuild(swift: swift, packageRoot: packageRoot, scratchPath: scratchPath, environment: environment)
        let entryPoint: URL
        do { entryPoint = try instrumented.writeEntryPoint() } catch let error as InstrumentedBuild.ManifestError {
            throw FlakinessError.buildFailed(scratchPath: scratchPath.path, log: error.detail)
        }
        // The arguments `run` builds with (`--package-path`, `-c`, the atomic counters, `--scratch-path`, the
        // arguments after `--`), so that the two share the build.
        let common = ["--package-path", packageRoot.path, "--scratch-path", scratchPath.path]
            + InstrumentedBuild.atomicCounterArguments + extraBuildArguments
        let build = try BuildArtifacts.build(
            note: { note in
                log?.write("testscope: " + note)
                StandardStreams.write(STDERR_FILENO, "testscope: " + note + "\n")
            },
            binPath: { try? BuildArtifacts.binPath(swift: swift, buildArguments: common, environment: environment) }
        ) { watch in
            try ProcessRunner.stream(
                swift, ["build", "--build-tests", "--enable-code-coverage", "--experimental-test-entry-point-path", entryPoint.path] + common,
                environment: environment, echo: false, onLine: { line in
                    log?.write(line)
                    if echo { StandardStreams.write(STDERR_FILENO, line + "\n") }
                    onLine?(line)
                    watch(line)
                })
        }
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

    /// `--list-tests` of XCTest and of Swift Testing, run on the built binary; Swift Testing's tests
    /// sorted in its serial order, learnt from the test records it writes to `stream`.
    package static func listTests(binary: URL, environment: [String: String], stream: URL) throws -> (tests: TestList, ranks: [String: Int]) {
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
