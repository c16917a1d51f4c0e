import ArgumentParser
import Foundation
import TestscopeKit
import TestscopeTestResults

extension Testscope {
    /// `testscope run`: the tests built with coverage and run under Testscope's supervisor, then reported.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the package's tests with code coverage and report it (also when tests fail or crash).",
            discussion: """
            Builds the tests with coverage (`swift build --build-tests --enable-code-coverage`) and runs the test \
            binary for XCTest and Swift Testing as `swift test` does, with the output streamed live and parsed. \
            A crashed or timed-out test is reported and the tests after it run in a relaunched process. \
            Arguments after `--` go to `swift build` (--disable-xctest / --disable-swift-testing skip a library).
            """)

        @Option(name: .long, help: ArgumentHelp("The package root (default: the current directory).", valueName: "dir"))
        var packagePath: String = "."
        @OptionGroup var selection: TestSelectionOptions
        @OptionGroup var build: BuildOptions
        @Option(name: .long, help: ArgumentHelp("Kill a test that runs longer than this, mark it timed out, and run the rest.", valueName: "seconds"))
        var testTimeout: Double?
        @Option(name: .long, help: ArgumentHelp("Run only shard K of N (1 <= K <= N): a stable partition of the tests; merge the shards with 'testscope merge'.", valueName: "K/N"))
        var shard: String?
        @Option(name: .long, help: ArgumentHelp("Balance the shards by the test durations in this tests.json of an earlier run.", valueName: "file"))
        var shardTimings: String?
        @Flag(name: .long, inversion: .prefixedNo, help: "Build with atomic counter updates (exact counts under parallel tests), in .build/testscope (or --scratch-path).")
        var atomicCounters = true
        @Flag(name: .long, help: "Also record which tests ran which lines (per-test.json; report --tests-for / --covered-by); the same build as run and flaky, .build/testscope.")
        var perTestCoverage = false
        @Option(name: .long, help: ArgumentHelp("Run failures not touched by the change again, up to N times; one that then passes is reported flaky (needs failure labels).", valueName: "N"))
        var retryUntouched = 0
        @Flag(name: .long, help: "Exit with status 3 when a test failed and then passed on a retry (--retry-untouched).")
        var failOnFlaky = false
        @OptionGroup var affected: AffectedOptionGroup
        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var coverage: CoverageOptions
        @OptionGroup var history: HistoryOption
        @Argument(parsing: .postTerminator, help: "Extra build arguments (after --), e.g. -Xswiftc -DFLAG; --disable-xctest / --disable-swift-testing skip a library.")
        var buildArguments: [String] = []

        func validate() throws {
            if let testTimeout, !(testTimeout > 0) { throw ValidationError("--test-timeout takes a number of seconds above 0") }
            if let shard, TestShard(parsing: shard) == nil { throw ValidationError("--shard takes K/N with 1 <= K <= N (e.g. 2/3), not '\(shard)'") }
            if shardTimings != nil && shard == nil { throw ValidationError("--shard-timings needs --shard K/N") }
            if retryUntouched < 0 { throw ValidationError("--retry-untouched takes a count of 0 or more, not \(retryUntouched)") }
            _ = try outputOptions.formats()
            try affected.validate(history: history.history)
        }

        func run() throws {
            try execute(outputOptions) { pipeline in
                var request = RunRequest(packageRoot: absoluteURL(packagePath),
                                         settings: try coverage.settings(outputOptions.settings(history: history)))
                (request.selection, request.testTimeout) = (build.selection(selection), testTimeout)
                (request.buildArguments, request.atomicCounters) = (buildArguments, atomicCounters)
                (request.perTestCoverage, request.shardTimings) = (perTestCoverage, shardTimings.map(absoluteURL))
                request.shard = shard.flatMap(TestShard.init(parsing:))
                request.affected = affected.options
                // The labels --retry-untouched needs come with the failure labeler (`request.failureLabeler`);
                // without one the Kit refuses the retries with a usage error (RunRequest.validate).
                (request.retryUntouched, request.failOnFlaky) = (retryUntouched, failOnFlaky)
                return try pipeline.run(request)
            }
        }
    }
}
