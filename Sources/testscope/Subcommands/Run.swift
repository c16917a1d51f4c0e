import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeTestResults

extension Testscope {
    /// `testscope run`: swift test with coverage, then profiles merged and exported by Testscope itself.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the package's tests with code coverage and report it (also when tests fail or crash).",
            discussion: """
            Builds the tests with coverage (`swift build --build-tests --enable-code-coverage`) and runs the test \
            binary for XCTest and Swift Testing as `swift test` does, with the output streamed live and parsed. \
            A crashed or timed-out test is reported and the tests after it run in a relaunched process. \
            Arguments after `--` go to `swift build` (--disable-xctest / --disable-swift-testing skip a library).
            """)

        @Option(name: .long, help: ArgumentHelp("The package root (default: the current directory).", valueName: "dir"))
        var packagePath: String = "."

        @Option(name: .long, help: "Forwarded to swift test: run only tests matching this regular expression (repeatable).")
        var filter: [String] = []

        @Option(name: .long, help: "Forwarded to swift test: skip tests matching this regular expression (repeatable).")
        var skip: [String] = []

        @Option(name: [.customShort("c"), .long], help: "Forwarded to swift test: debug or release.")
        var configuration: String?

        @Option(name: .long, help: ArgumentHelp("Forwarded to swift test: the build folder.", valueName: "dir"))
        var scratchPath: String?

        @Option(name: .long, help: ArgumentHelp("Kill a test that runs longer than this, mark it timed out, and run the rest.", valueName: "seconds"))
        var testTimeout: Double?

        @OptionGroup var coverage: CoverageOptions

        @Argument(parsing: .postTerminator, help: "Extra build arguments (after --), e.g. -Xswiftc -DFLAG; --disable-xctest / --disable-swift-testing skip a library.")
        var swiftTestArguments: [String] = []

        func validate() throws {
            if let testTimeout, !(testTimeout > 0) { throw ValidationError("--test-timeout takes a number of seconds above 0") }
            if let configuration, !["debug", "release"].contains(configuration) {
                throw ValidationError("-c/--configuration takes debug or release, not \(configuration)")
            }
        }

        func run() throws {
            try withErrorHandling { try execute() }
        }

        private func execute() throws -> ExitStatus {
            let root = absoluteURL(packagePath)
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) else {
                throw CoverageError.notAPackage(path: root.path)
            }
            let terminal = coverage.terminal
            let toolchain = try coverage.toolchain()
            guard let swift = toolchain.swift else {
                throw ExecutionError.toolNotFound(tool: "swift", searched: ["PATH"])
            }
            let output = coverage.outputFolder(packageRoot: root)
            // A broken --templates folder is reported before the tests run, not after.
            if try coverage.formats(default: CoverageOptions.defaultFormats).contains(.html) {
                _ = try coverage.htmlReport(watermarks: try coverage.parsedWatermarks())
            }
            try output.prepare()

            var buildArguments = ["--package-path", root.path]
            if let configuration { buildArguments += ["-c", configuration] }
            if let scratchPath { buildArguments += ["--scratch-path", absoluteURL(scratchPath).path] }
            let logURL = try output.file("swift-test.log")
            let log = try AtomicFileWriter(destination: logURL)
            terminal.note("building the tests with coverage and running them in \(root.path)")
            let request = TestRunRequest(
                swift: swift, buildArguments: buildArguments, filters: filter, skips: skip,
                extraArguments: swiftTestArguments, artifacts: output.url, testTimeout: testTimeout, echo: true)
            let started = Date().addingTimeInterval(-1)
            let coordinator = TestRunCoordinator(request: request, note: { terminal.note($0) })
            let run = try coordinator.run(log: log)
            try log.commit()
            if run.buildFailed {
                Terminal.error("the package or its tests did not build (see the output above and \(logURL.path)); no tests ran")
                return .testsFailed
            }
            if run.testBinary == nil {
                throw CoverageError.noTests(package: root.path)
            }
            var tests = run.results
            tests.properties = [("host", ProcessInfo.processInfo.hostName), ("swift", swift.path)]
            let testsFailed = tests.hasFailures || run.swiftTestStatus != 0

            guard !run.profiles.isEmpty, let binary = run.testBinary else {
                if testsFailed {
                    if !tests.results.isEmpty { _ = try CoveragePipeline(options: coverage, defaultFormats: CoverageOptions.defaultFormats, command: "run")
                        .processTests(tests, packageRoot: root, output: output, coverageLine: nil) }
                    Terminal.error("no test process exited normally, so there is no coverage (see the output above and \(logURL.path))")
                    return .testsFailed
                }
                throw CoverageError.noProfiles(directory: run.binPath?.appendingPathComponent("codecov").path ?? root.path)
            }
            let collector = CoverageCollector(toolchain: toolchain)
            let profdata = try output.file("default.profdata")
            terminal.progress("merging \(run.profiles.count) raw profile(s)")
            try collector.mergeProfiles(run.profiles, into: profdata)
            let export = try output.file("llvm-cov-export.json")
            terminal.progress("exporting coverage with \(toolchain.llvmCov.path)")
            try collector.export(profile: profdata, binaries: [binary], to: export)

            let pipeline = CoveragePipeline(options: coverage, defaultFormats: CoverageOptions.defaultFormats, command: "run")
            let (gate, report) = try pipeline.processCoverage(exports: [export], packageRoot: root, toolchain: toolchain,
                                                              output: output, dataRecordedAt: started, tests: tests)
            let testStatus = try pipeline.processTests(tests, packageRoot: root, output: output,
                                                       coverageLine: pipeline.summaryLine(report))
            if testsFailed || testStatus == .testsFailed {
                Terminal.error(tests.hasFailures
                    ? "tests failed (\(tests.summaryLine)); coverage above covers every test process that exited"
                    : "the test binary exited with status \(run.swiftTestStatus); coverage above covers the tests that ran")
                return .testsFailed
            }
            return gate
        }
    }
}
