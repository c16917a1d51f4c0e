import ArgumentParser
import Foundation
import TestscopeKit

extension Testscope {
    /// `testscope report`: reports from existing profiles, binaries or exports, without running tests.
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Report coverage from existing artifacts without running tests.",
            discussion: """
            Inputs: --export FILE (llvm-cov JSON exports, repeatable: merged); or --profile FILE (.profdata or \
            .profraw, repeatable: merged) with --binary FILE (the test binary, repeatable); or --build-path DIR \
            to find both in a SwiftPM build folder. Test results: --test-log FILE (swift test console output), \
            --event-stream FILE (Swift Testing JSON event stream), --junit FILE; combinable with coverage inputs. \
            Without inputs: the last `testscope run` again (its .testscope-run.json), from --from DIR or else the \
            output folder; the reports go to the output folder.
            """)

        @Option(name: .long, help: ArgumentHelp("The package root; only its own sources count (default: the package of the run reported again, else the current directory).", valueName: "dir"))
        var packagePath: String?
        @Option(name: .long, help: ArgumentHelp("An llvm-cov JSON export (repeatable; several are merged).", valueName: "file"))
        var export: [String] = []
        @Option(name: .long, help: ArgumentHelp("A .profdata or .profraw profile (repeatable; merged).", valueName: "file"))
        var profile: [String] = []
        @Option(name: .long, help: ArgumentHelp("A test binary built with coverage (repeatable).", valueName: "file"))
        var binary: [String] = []
        @Option(name: .long, help: ArgumentHelp("A SwiftPM build folder (.build) to find the profile and test binary in.", valueName: "dir"))
        var buildPath: String?
        @Option(name: .long, help: ArgumentHelp("The architecture to report of a universal (Mach-O) binary, as llvm-cov's -arch (default: this machine's, else the only one).", valueName: "arch"))
        var arch: String?
        @Option(name: .long, help: ArgumentHelp("A swift test console log to read XCTest results from (repeatable).", valueName: "file"))
        var testLog: [String] = []
        @Option(name: .long, help: ArgumentHelp("A Swift Testing event stream (--event-stream-output-path) to read (repeatable).", valueName: "file"))
        var eventStream: [String] = []
        @Option(name: .customLong("junit"), help: ArgumentHelp("A JUnit XML file to read test results from (repeatable).", valueName: "file"))
        var junitInput: [String] = []
        @Option(name: .long, help: ArgumentHelp("`swift test list` output, for the module names XCTest logs omit.", valueName: "file"))
        var testList: String?
        @Option(name: .long, help: ArgumentHelp("The build folder for swift package describe (default: .build; the plugin passes its own).", valueName: "dir"))
        var scratchPath: String?
        @Option(name: .long, help: ArgumentHelp("The output folder of the run to report again (default: the output folder); the reports still go to --output.", valueName: "dir"))
        var from: String?
        @Option(name: .long, help: ArgumentHelp("Print the tests that ran this line (from `run --per-test-coverage`'s per-test.json in --from or --output), one per line.", valueName: "path:line"))
        var testsFor: String?
        @Option(name: .long, help: ArgumentHelp("Print the lines this test ran (PATH:LINES), from `run --per-test-coverage`'s per-test.json in --from or --output.", valueName: "test"))
        var coveredBy: String?
        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var coverage: CoverageOptions

        func validate() throws {
            let modes = [!export.isEmpty, !profile.isEmpty || !binary.isEmpty, buildPath != nil].filter { $0 }.count
            if modes > 1 { throw ValidationError("use one kind of input: --export, --profile/--binary, or --build-path") }
            if !profile.isEmpty && binary.isEmpty { throw ValidationError("--profile needs --binary (the test binary the profile was recorded with)") }
            if profile.isEmpty && !binary.isEmpty { throw ValidationError("--binary needs --profile") }
            let testInputs = !testLog.isEmpty || !eventStream.isEmpty || !junitInput.isEmpty || testList != nil
            if from != nil, modes > 0 || testInputs {
                throw ValidationError("--from reports a recorded run again from its own files; give either --from or inputs (--export, --profile, --build-path, --test-log, --event-stream, --junit, --test-list)")
            }
            if testsFor != nil || coveredBy != nil {
                if testsFor != nil && coveredBy != nil { throw ValidationError("use one of --tests-for and --covered-by") }
                if modes > 0 || testInputs {
                    throw ValidationError("--tests-for and --covered-by read the per-test.json of --from or the output folder; they take no other inputs")
                }
            }
            _ = try outputOptions.formats()
        }

        func run() throws {
            try execute(outputOptions) { pipeline in
                let settings = try coverage.settings(outputOptions.settings())
                var request = ReportRequest(packageRoot: absoluteURL(packagePath ?? "."), settings: settings)
                request.packageRootGiven = packagePath != nil
                request.perTest = try testsFor.map(PerTestQuery.testsFor) ?? coveredBy.map(PerTestQuery.coveredBy(test:))
                (request.exports, request.from) = (export.map(absoluteURL), from.map(absoluteURL))
                (request.profiles, request.binaries) = (profile.map(absoluteURL), binary.map(absoluteURL))
                (request.buildPath, request.testList) = (buildPath.map(absoluteURL), testList.map(absoluteURL))
                (request.testLogs, request.eventStreams) = (testLog.map(absoluteURL), eventStream.map(absoluteURL))
                (request.junit, request.settings.scratchPath) = (junitInput.map(absoluteURL), scratchPath.map(absoluteURL))
                request.settings.architecture = arch
                return try pipeline.report(request)
            }
        }
    }
}
