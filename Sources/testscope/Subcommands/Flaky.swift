import ArgumentParser
import Foundation
import TestscopeFlakiness
import TestscopeKit
import TestscopeReports

extension Testscope {
    /// `testscope flaky`: seeded in-process orders, OD/NOD classification, polluters and reproduction commands.
    struct Flaky: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flaky",
            abstract: "Find flaky tests: run the tests in seeded orders in one process, classify them (OD victim, brittle, NOD) and find their polluters.",
            discussion: """
            Builds the tests once with Testscope's entry point (into .build/testscope in the package, the build run uses), then runs the \
            test binary N times: run 0 in the default order, run 1 reversed, then seeded shuffles (class level and method \
            level), taking the --nod-modes in turn. Tests that both passed and failed are confirmed and minimized to a reproduction command. \
            --order/--order-file/--replay run exactly one order instead. Linux only. Exit status: 0 no consistent \
            failure (flaky tests are warnings); 1 a test failed in every run (or a replayed order failed); 3 flaky tests \
            with --fail-on-flaky; 64 bad usage; 65 bad input.
            """)

        @Option(name: .long, help: ArgumentHelp("The package root (default: the current directory).", valueName: "dir"))
        var packagePath: String = "."
        @Option(name: .long, help: ArgumentHelp("Number of runs (orders): the default order, its reverse, then shuffles.", valueName: "N"))
        var runs: Int = FlakyDefaults.runs
        @Option(name: .long, help: ArgumentHelp("The seed of the shuffles (0 to 2^53-1; default: random, printed).", valueName: "S"))
        var seed: String?
        @Option(name: .long, help: ArgumentHelp("Runs at the same time (default: one per core, and up to 4 per core while the CPUs sit idle). Orders and classification do not depend on it.", valueName: "J"))
        var jobs: Int?
        @Option(name: .long, help: ArgumentHelp("Kill a test that runs longer than this (it counts as a failure) and go on in a new process.", valueName: "seconds"))
        var testTimeout: Double = 120
        @OptionGroup var selection: TestSelectionOptions
        @Option(name: .long, help: ArgumentHelp("Re-run exactly run K of the plan of --seed (and --runs).", valueName: "K"))
        var replay: Int?
        @Option(name: .long, help: ArgumentHelp("Re-run exactly the order in FILE (one test id per line).", valueName: "file"))
        var orderFile: String?
        @Option(name: .long, help: ArgumentHelp("Re-run exactly this order: test ids separated by commas.", valueName: "ids"))
        var order: String?
        @Option(name: .long, help: ArgumentHelp("With --order/--order-file/--replay: run the order this many times.", valueName: "N"))
        var `repeat`: Int = 1
        @Option(name: .long, help: ArgumentHelp("Known flaky tests (one id per line): run and reported, never counted by the exit status.", valueName: "file"))
        var quarantine: String?
        @Flag(name: .long, help: "Exit with status 3 when a test that is not quarantined is flaky (od-victim, od-brittle, nod).")
        var failOnFlaky = false
        @Flag(name: .long, help: "Shuffle Swift Testing tests one by one, not suite by suite (slower: Swift Testing discovers all tests on each call).")
        var shuffleSwiftTestingTests = false
        @Option(name: .long, help: ArgumentHelp("The conditions the runs take in turn, comma-separated: plain, stress (a load thread per core), one-core, parallel (Swift Testing's tests at once).", valueName: "modes"))
        var nodModes: String = NODMode.defaults.map(\.rawValue).joined(separator: ",")
        @Flag(name: .long, help: "Apply each proposed fix to a copy of the package (in the output folder), rebuild it and rerun the failing order 3 times: verified or not.")
        var verifyFixes = false
        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var build: BuildOptions
        @OptionGroup var history: HistoryOption

        @Argument(parsing: .postTerminator, help: "Extra arguments for swift build (after --).")
        var buildArguments: [String] = []

        func validate() throws {
            guard runs >= 1 else { throw ValidationError("--runs takes a number of runs of 1 or more, not \(runs)") }
            if let jobs { guard jobs >= 1 else { throw ValidationError("--jobs takes 1 or more, not \(jobs)") } }
            guard testTimeout > 0 else { throw ValidationError("--test-timeout takes a number of seconds above 0") }
            guard `repeat` >= 1 else { throw ValidationError("--repeat takes 1 or more, not \(`repeat`)") }
            if [replay != nil, orderFile != nil, order != nil].filter({ $0 }).count > 1 {
                throw ValidationError("--replay, --order-file and --order each choose the one order to run; give only one")
            }
            if let replay {
                guard seed != nil else { throw ValidationError("--replay needs the --seed of the run it replays") }
                guard replay >= 0 else { throw ValidationError("--replay takes a run number from 0, not \(replay)") }
            }
            if verifyFixes, replay != nil || orderFile != nil || order != nil {
                throw ValidationError("--verify-fixes verifies the fixes a detection proposes; --replay, --order-file and --order only rerun an order")
            }
            if `repeat` != 1, replay == nil, orderFile == nil, order == nil {
                throw ValidationError("--repeat repeats the one order of --order, --order-file or --replay; give one of them")
            }
            let modes = NODMode.parse(nodModes)
            if let unknown = modes.unknown {
                throw ValidationError("--nod-modes takes \(NODMode.allCases.map(\.rawValue).joined(separator: ", ")), not '\(unknown)'")
            }
            guard !modes.modes.isEmpty else { throw ValidationError("--nod-modes needs at least one mode, e.g. plain") }
            _ = try outputOptions.formats(supported: ReportFormat.flakyFormats)
        }

        func run() throws {
            try execute(outputOptions) { pipeline in
                let settings = try outputOptions.settings(supported: ReportFormat.flakyFormats, history: history)
                var request = FlakyRequest(packageRoot: absoluteURL(packagePath), settings: settings)
                request.seed = try seed.map(OrderPlan.parseSeed)
                if let replay { request.mode = .replay(run: replay, repeat: `repeat`) }
                if let orderFile { request.mode = .orderFile(absoluteURL(orderFile), repeat: `repeat`) }
                if let order { request.mode = .order(FlakyRequest.orderIDs(order), repeat: `repeat`) }
                (request.runs, request.jobs, request.testTimeout) = (runs, jobs, testTimeout)
                (request.quarantineFile, request.failOnFlaky) = (quarantine.map(absoluteURL), failOnFlaky)
                (request.shuffleSwiftTestingTests, request.buildArguments) = (shuffleSwiftTestingTests, buildArguments)
                request.nodModes = NODMode.parse(nodModes).modes
                request.verifyFixes = verifyFixes
                request.selection = build.selection(selection)
                request.commandPrefix = request.reproductionPrefix(packagePath: packagePath, scratchPath: build.scratchPath)
                return try pipeline.flaky(request)
            }
        }
    }
}
