import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeRun
import TestscopeTestResults

extension Testscope {
    /// `testscope report`: reports from existing profiles, binaries or exports, without running tests.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report coverage from existing artifacts without running tests.",
            discussion: """
            Inputs: --export FILE (llvm-cov JSON exports, repeatable: merged); or --profile FILE (.profdata or \
            .profraw, repeatable: merged) with --binary FILE (the test binary, repeatable); or --build-path DIR \
            to find both in a SwiftPM build folder. Test results: --test-log FILE (swift test console output), \
            --event-stream FILE (Swift Testing JSON event stream), --junit FILE; combinable with coverage inputs.
            """)

        @Option(name: .long, help: ArgumentHelp("The package root; only its own sources count (default: the current directory).", valueName: "dir"))
        var packagePath: String = "."

        @Option(name: .long, help: ArgumentHelp("An llvm-cov JSON export (repeatable; several are merged).", valueName: "file"))
        var export: [String] = []

        @Option(name: .long, help: ArgumentHelp("A .profdata or .profraw profile (repeatable; merged).", valueName: "file"))
        var profile: [String] = []

        @Option(name: .long, help: ArgumentHelp("A test binary built with coverage (repeatable).", valueName: "file"))
        var binary: [String] = []

        @Option(name: .long, help: ArgumentHelp("A SwiftPM build folder (.build) to find the profile and test binary in.", valueName: "dir"))
        var buildPath: String?

        @Option(name: .long, help: ArgumentHelp("A swift test console log to read XCTest results from (repeatable).", valueName: "file"))
        var testLog: [String] = []

        @Option(name: .long, help: ArgumentHelp("A Swift Testing event stream (--event-stream-output-path) to read (repeatable).", valueName: "file"))
        var eventStream: [String] = []

        @Option(name: .customLong("junit"), help: ArgumentHelp("A JUnit XML file to read test results from (repeatable).", valueName: "file"))
        var junitInput: [String] = []

        @Option(name: .long, help: ArgumentHelp("`swift test list` output, for the module names XCTest logs omit.", valueName: "file"))
        var testList: String?

        @OptionGroup var coverage: CoverageOptions

        var hasTestInput: Bool { !testLog.isEmpty || !eventStream.isEmpty || !junitInput.isEmpty }

        func validate() throws {
            let modes = [!export.isEmpty, !profile.isEmpty || !binary.isEmpty, buildPath != nil].filter { $0 }.count
            if modes == 0 && !hasTestInput {
                throw ValidationError("no input; pass --export FILE, --profile FILE with --binary FILE, or --build-path DIR (coverage), and/or --test-log, --event-stream, --junit (test results)")
            }
            if modes > 1 { throw ValidationError("use one kind of input: --export, --profile/--binary, or --build-path") }
            if !profile.isEmpty && binary.isEmpty { throw ValidationError("--profile needs --binary (the test binary the profile was recorded with)") }
            if profile.isEmpty && !binary.isEmpty { throw ValidationError("--binary needs --profile") }
        }

        func run() throws {
            try withErrorHandling { try execute() }
        }

        private func execute() throws -> ExitStatus {
            let root = absoluteURL(packagePath)
            let output = coverage.outputFolder(packageRoot: root)
            let pipeline = CoveragePipeline(options: coverage, defaultFormats: CoverageOptions.defaultFormats)
            let tests = try importTests()
            let hasCoverage = !export.isEmpty || !profile.isEmpty || buildPath != nil
            var status = ExitStatus.success
            var coverageLine: String?
            if hasCoverage {
                let (gate, report) = try coverageStatus(root: root, output: output, pipeline: pipeline, tests: tests)
                status = gate
                coverageLine = pipeline.summaryLine(report)
            }
            if let tests {
                let testStatus = try pipeline.processTests(tests, packageRoot: root, output: output, coverageLine: coverageLine)
                if testStatus == .testsFailed { return .testsFailed }
            }
            return status
        }

        /// Test results from the imported files, or nil when none were given.
        private func importTests() throws -> TestRunResults? {
            guard hasTestInput else { return nil }
            let list = try testList.map { TestList.parse(try String(contentsOf: absoluteURL($0), encoding: .utf8)) }
            return try TestResultImporter.combined(logs: testLog.map(absoluteURL), streams: eventStream.map(absoluteURL),
                                                   junit: junitInput.map(absoluteURL), testList: list)
        }

        private func coverageStatus(root: URL, output: OutputFolder, pipeline: CoveragePipeline,
                                    tests: TestRunResults?) throws -> (ExitStatus, CoverageReport) {
            if !export.isEmpty {
                let exports = export.map(absoluteURL)
                for file in exports where !FileManager.default.fileExists(atPath: file.path) {
                    throw CoverageError.fileNotFound(path: file.path)
                }
                let toolchain = try? coverage.toolchain()
                let recorded = exports.map(BuildArtifacts.modified).max()
                return try pipeline.processCoverage(exports: exports, packageRoot: root, toolchain: toolchain,
                                                    output: output, dataRecordedAt: recorded, tests: tests)
            }
            let toolchain = try coverage.toolchain()
            var profiles = profile.map(absoluteURL)
            var binaries = binary.map(absoluteURL)
            if let buildPath {
                let build = absoluteURL(buildPath)
                guard FileManager.default.fileExists(atPath: build.path) else { throw CoverageError.fileNotFound(path: build.path) }
                guard let codecov = BuildArtifacts.codecovDirectory(in: build) else { throw CoverageError.noProfiles(directory: build.path) }
                let found = BuildArtifacts.profiles(in: codecov)
                profiles = found.raw.isEmpty ? found.merged : found.raw
                guard !profiles.isEmpty else { throw CoverageError.noProfiles(directory: codecov.path) }
                guard let testBinary = BuildArtifacts.testBinary(in: codecov.deletingLastPathComponent()) else {
                    throw CoverageError.noTestBinary(directory: codecov.deletingLastPathComponent().path)
                }
                binaries = [testBinary]
            }
            for file in profiles + binaries where !FileManager.default.fileExists(atPath: file.path) {
                throw CoverageError.fileNotFound(path: file.path)
            }
            try output.prepare()
            let collector = CoverageCollector(toolchain: toolchain)
            var merged = profiles[0]
            if profiles.count > 1 || profiles[0].pathExtension == "profraw" {
                merged = try output.file("default.profdata")
                coverage.terminal.progress("merging \(profiles.count) profile(s)")
                try collector.mergeProfiles(profiles, into: merged)
            }
            let exportURL = try output.file("llvm-cov-export.json")
            coverage.terminal.progress("exporting coverage with \(toolchain.llvmCov.path)")
            try collector.export(profile: merged, binaries: binaries, to: exportURL)
            let recorded = profiles.map(BuildArtifacts.modified).max()
            return try pipeline.processCoverage(exports: [exportURL], packageRoot: root, toolchain: toolchain,
                                                output: output, dataRecordedAt: recorded, tests: tests)
        }
    }
}
