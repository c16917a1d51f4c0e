import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution

extension Testscope {
    /// `testscope run`: swift test with coverage, then profiles merged and exported by Testscope itself.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the package's tests with code coverage and report it (also when tests fail or crash).",
            discussion: "Arguments after `--` are passed to `swift test` unchanged.")

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

        @OptionGroup var coverage: CoverageOptions

        @Argument(parsing: .postTerminator, help: "Extra arguments for swift test (after --).")
        var swiftTestArguments: [String] = []

        func validate() throws {
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
            try output.prepare()

            var buildArguments = ["--package-path", root.path]
            if let configuration { buildArguments += ["-c", configuration] }
            if let scratchPath { buildArguments += ["--scratch-path", absoluteURL(scratchPath).path] }
            var testArguments = ["test"] + buildArguments + ["--enable-code-coverage"]
            for pattern in filter { testArguments += ["--filter", pattern] }
            for pattern in skip { testArguments += ["--skip", pattern] }
            testArguments += swiftTestArguments

            var environment = ProcessInfo.processInfo.environment
            if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "interactive=no" }
            let logURL = try output.file("swift-test.log")
            let log = try AtomicFileWriter(destination: logURL)
            let started = Date().addingTimeInterval(-1)
            terminal.note("running swift \(testArguments.joined(separator: " "))")
            let result = try ProcessRunner.stream(swift, testArguments, environment: environment,
                                                  onLine: { line in try? log.write(line + "\n") })
            try log.commit()
            let stderr = result.stderrText
            if stderr.contains("no tests found") {
                throw CoverageError.noTests(package: root.path)
            }
            let testsFailed = !result.succeeded

            let binResult = try ProcessRunner.run(swift, ["build"] + buildArguments + ["--show-bin-path"])
            let binPath = URL(fileURLWithPath: binResult.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
            let codecov = binPath.appendingPathComponent("codecov")
            let profiles = BuildArtifacts.profiles(in: codecov, since: started).raw
            guard !profiles.isEmpty else {
                if testsFailed {
                    Terminal.error("swift test failed before any test wrote coverage (see its output above and in \(logURL.path)); no coverage report")
                    return .testsFailed
                }
                throw CoverageError.noProfiles(directory: codecov.path)
            }
            guard let binary = BuildArtifacts.testBinary(in: binPath) else {
                throw CoverageError.noTestBinary(directory: binPath.path)
            }
            let collector = CoverageCollector(toolchain: toolchain)
            let profdata = try output.file("default.profdata")
            terminal.progress("merging \(profiles.count) raw profile(s)")
            try collector.mergeProfiles(profiles, into: profdata)
            let export = try output.file("llvm-cov-export.json")
            terminal.progress("exporting coverage with \(toolchain.llvmCov.path)")
            try collector.export(profile: profdata, binaries: [binary], to: export)

            let pipeline = CoveragePipeline(options: coverage, defaultFormats: [.text, .json, .lcov])
            let gate = try pipeline.process(exports: [export], packageRoot: root, toolchain: toolchain,
                                            output: output, dataRecordedAt: started)
            if testsFailed {
                Terminal.error(result.terminatedBySignal
                    ? "swift test was killed by signal \(result.status); coverage above covers the tests that ran"
                    : "tests failed (swift test exit status \(result.status)); coverage above covers the tests that ran")
                return .testsFailed
            }
            return gate
        }
    }
}
