import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeReports
import TestscopeTestResults

extension Testscope {
    /// `testscope flaky`: seeded in-process orders, OD/NOD classification, polluters and reproduction commands.
    struct Flaky: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find flaky tests: run the tests in seeded orders in one process, classify them (OD victim, brittle, NOD) and find their polluters.",
            discussion: """
            Builds the tests once with Testscope's entry point (into .build-testscope-flaky in the package), then runs the \
            test binary N times: run 0 in the default order, run 1 reversed, then seeded shuffles (class level and method \
            level). Tests that both passed and failed are confirmed and minimized to a reproduction command. \
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

        @Option(name: .long, help: "Only tests matching this regular expression (repeatable; as swift test --filter).")
        var filter: [String] = []

        @Option(name: .long, help: "Leave out tests matching this regular expression (repeatable).")
        var skip: [String] = []

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

        @Option(name: .long, help: ArgumentHelp("Output formats, comma-separated or repeated: text, json, junit, html (default: all).", valueName: "formats"))
        var format: [String] = []

        @Option(name: .long, help: ArgumentHelp("Output folder (default: .testscope under the package).", valueName: "dir"))
        var output: String?

        @Option(name: .long, help: ArgumentHelp("The build folder for the tests with Testscope's entry point (default: .build-testscope-flaky in the package).", valueName: "dir"))
        var scratchPath: String?

        @Option(name: [.customShort("c"), .long], help: "debug or release.")
        var configuration: String?

        @Flag(name: .long, help: "Only errors, warnings and the reports; no progress.")
        var quiet = false

        @Flag(name: .long, help: "No colours (also when NO_COLOR is set).")
        var noColor = false

        @Argument(parsing: .postTerminator, help: "Extra arguments for swift build (after --).")
        var buildArguments: [String] = []

        /// `--jobs`, or one per core.
        var jobCount: Int { jobs ?? ProcessInfo.processInfo.activeProcessorCount }

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
            if `repeat` != 1, replay == nil, orderFile == nil, order == nil {
                throw ValidationError("--repeat repeats the one order of --order, --order-file or --replay; give one of them")
            }
            for (name, patterns) in [("--filter", filter), ("--skip", skip)] {
                for pattern in patterns where (try? NSRegularExpression(pattern: pattern)) == nil {
                    throw ValidationError("\(name) '\(pattern)' is not a regular expression")
                }
            }
            if let configuration, !["debug", "release"].contains(configuration) {
                throw ValidationError("-c/--configuration takes debug or release, not \(configuration)")
            }
            _ = try formats()
        }

        func run() throws {
            try withErrorHandling { try execute() }
        }

        enum Format: String, CaseIterable { case text, json, junit, html }

        func formats() throws -> Set<Format> {
            let names = format.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            if names.isEmpty { return Set(Format.allCases) }
            return Set(try names.map { name in
                guard let format = Format(rawValue: name) else {
                    throw ValidationError("unknown format '\(name)'; choose from: \(Format.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return format
            })
        }

        private func execute() throws -> ExitStatus {
            let terminal = Terminal.detect(quiet: quiet, noColor: noColor)
            let root = absoluteURL(packagePath)
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) else {
                throw CoverageError.notAPackage(path: root.path)
            }
            // Inputs first, so that a bad one fails before the build.
            let seedValue = try seed.map(OrderPlan.parseSeed) ?? OrderPlan.randomSeed()
            if let replay, replay >= runs { throw FlakinessError.unknownReplayIndex(replay, runs: runs) }
            let givenOrder = try orderFile.map { try OrderFile.read(absoluteURL($0)) }
                ?? order.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            let quarantined = try quarantine.map(readQuarantine) ?? []
            let environment = ProcessInfo.processInfo.environment
            guard let swift = environment["TESTSCOPE_SWIFT"].map({ URL(fileURLWithPath: $0) }) ?? Toolchain.findInPath("swift", environment: environment) else {
                throw ExecutionError.toolNotFound(tool: "swift", searched: ["PATH"])
            }
            let outputFolder = OutputFolder(output.map(absoluteURL) ?? root.appendingPathComponent(".testscope"))
            try outputFolder.prepare()
            let scratch = scratchPath.map(absoluteURL) ?? FlakyBuilder.defaultScratchPath(packageRoot: root)
            var extra = buildArguments
            if let configuration { extra = ["-c", configuration] + extra }

            terminal.note("building the tests with Testscope's entry point in \(scratch.path) (your .build is left as it is)")
            let buildStarted = Date()
            let buildLog = try LineLog(try outputFolder.file("flaky-build.log"))
            let builder = FlakyBuilder(swift: swift, packageRoot: root, scratchPath: scratch, extraBuildArguments: extra)
            let binary: FlakyTestBinary
            do { binary = try builder.build(log: buildLog, echo: terminal.showProgress) } catch {
                try? buildLog.commit()
                if case FlakinessError.buildFailed = error, !terminal.showProgress {
                    // The compiler's errors, which were not shown as they came.
                    let lines = ((try? String(contentsOfFile: buildLog.path, encoding: .utf8)) ?? "").split(separator: "\n")
                    for line in lines.filter({ $0.contains("error:") }).prefix(10) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
                }
                throw error
            }
            try buildLog.commit()
            let buildSeconds = Date().timeIntervalSince(buildStarted)

            let work = try outputFolder.file("flaky-work")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let executor = OrderExecutor(binary: binary, workDirectory: work, testTimeout: testTimeout)
            let detector = FlakyDetector(binary: binary, executor: executor, logsFolder: try outputFolder.file("flaky-logs"))
            let options = FlakyOptions(runs: runs, seed: seedValue, jobs: jobCount, filters: filter, skips: skip, quarantine: quarantined,
                                       forceRepetition: environment["TESTSCOPE_FLAKY_SWIFT_TESTING"] == "repetition",
                                       shuffleSwiftTestingTests: shuffleSwiftTestingTests,
                                       maxJobs: jobs == nil ? FlakyDefaults.maxJobsPerCore * jobCount : nil)
            let reproduction = Reproduction(testscopePrefix: commandPrefix(), binaryPath: displayPath(binary.binary))

            if let replay {
                let planned = try detector.replayOrder(options, index: replay)
                print("Replaying run \(replay) of seed \(seedValue): \(planned.label)")
                return try replayOrder(planned.tests, detector: detector, options: options, source: "--replay")
            }
            if let givenOrder {
                let known = Set(try detector.selectedTests(options).all)
                try OrderFile.validate(givenOrder, known: known, source: orderFile ?? "--order")
                return try replayOrder(givenOrder, detector: detector, options: options, source: orderFile ?? "--order")
            }

            let jobsText = jobs == nil ? "\(jobCount) job\(jobCount == 1 ? "" : "s") (up to \(FlakyDefaults.maxJobsPerCore * jobCount) while the CPUs sit idle)"
                : "\(jobCount) job\(jobCount == 1 ? "" : "s")"
            print("testscope flaky: seed \(seedValue), \(runs) runs, \(jobsText)")
            // Per-run lines are progress: --quiet drops them (the seed line above stays: it replays the run).
            let quiet = self.quiet
            var report = try detector.detect(options, reproduction: reproduction, packageRoot: root.path) { line in
                guard !quiet else { return }
                print(line)
                fflush(stdout)
            }
            report.buildSeconds = buildSeconds
            return try finish(report, terminal: terminal, output: outputFolder, root: root)
        }

        /// Prints the table, writes the reports, and returns the exit status.
        private func finish(_ report: FlakyReport, terminal: Terminal, output: OutputFolder, root: URL) throws -> ExitStatus {
            let formats = try formats()
            print(try FlakyTableReport(terminal: terminal).renderString(report), terminator: "")
            var written: [String] = []
            if formats.contains(.text) {
                written.append(try FlakyTableReport(terminal: Terminal(useColor: false, showProgress: false, quiet: true)).write(report, into: output))
            }
            if formats.contains(.json) { written.append(try FlakyJSONReport(packageRoot: root.path).write(report, into: output)) }
            if formats.contains(.junit) { written.append(try FlakyJUnitReport(packageRoot: root.path).write(report, into: output)) }
            var htmlPage: String?
            if formats.contains(.html) {
                // The top bar: flaky.html and the pages `run`/`report` recorded in the folder's manifest.
                var page = FlakyHTMLPage(templates: try HTMLTemplates.builtIn(), generatorVersion: Testscope.version, packageRoot: root.path)
                let pages = PagesManifest.read(in: output).replacing(.flaky, with: page.pageKinds, command: "flaky", in: output)
                page.navigation = pages.navigation
                htmlPage = try page.writePages(report, into: output)[0]
                try pages.write(into: output)
                written.append(htmlPage!)
            }
            terminal.note("flaky reports in \(output.url.path): \(written.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", "))")
            terminal.note(String(format: "build %.1f s, %d runs %.1f s, analysis %.1f s", report.buildSeconds, report.orders.count,
                                 report.detectionSeconds, report.analysisSeconds))
            if let htmlPage, !quiet { print("HTML report: \(htmlPage)") }
            if !report.gatingFailures.isEmpty {
                Terminal.error("\(report.gatingFailures.count) test(s) failed in every run: \(report.gatingFailures.map(\.id).joined(separator: ", "))")
                return .testsFailed
            }
            let flaky = report.gatingFlaky
            if !flaky.isEmpty {
                let message = "\(flaky.count) flaky test(s): \(flaky.map { "\($0.id) (\($0.classification.rawValue))" }.joined(separator: ", "))"
                if failOnFlaky {
                    Terminal.error(message + " (--fail-on-flaky)")
                    return .flaky
                }
                terminal.warning(message)
            }
            return .success
        }

        /// Runs one order `repeat` times and prints each test's outcomes; 1 when any test failed.
        private func replayOrder(_ order: [String], detector: FlakyDetector, options: FlakyOptions, source: String) throws -> ExitStatus {
            let executions = try detector.replay(order, count: `repeat`, jobs: jobCount)
            var anyFailed = false
            for (position, id) in order.enumerated() {
                let outcomes = executions.map { $0.results[id]?.outcome.rawValue ?? "not-run" }
                let failed = executions.filter { $0.verdict(id) == .fail }.count
                if failed > 0 { anyFailed = true }
                let summary = `repeat` == 1 ? outcomes[0] : "failed \(failed) of \(`repeat`) (\(Dictionary(grouping: outcomes, by: { $0 }).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")))"
                print("\(position + 1). \(id): \(summary)")
                if let failure = executions.lazy.compactMap({ $0.results[id] }).first(where: { Verdict($0.outcome) == .fail }),
                   let message = failure.issues.first(where: \.isFailure)?.message ?? failure.crash?.fatalError ?? failure.crash?.reason {
                    print("   \(message)")
                }
            }
            if executions.contains(where: { $0.relaunches > 0 }) { print("(the binary was relaunched after a crash or a timeout)") }
            return anyFailed ? .testsFailed : .success
        }

        private func readQuarantine(_ path: String) throws -> Set<String> {
            let url = absoluteURL(path)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw FlakinessError.unreadableQuarantine(path: url.path, reason: "no such file or not UTF-8")
            }
            return Set(OrderFile.parse(text))
        }

        /// `testscope flaky [--package-path P] [--scratch-path S] [-c C] [--filter …] [--skip …]` as the user
        /// typed them (a replay writes no report, so `--output` is left out).
        private func commandPrefix() -> String {
            var parts = ["testscope", "flaky"]
            if packagePath != "." { parts += ["--package-path", Reproduction.quote(packagePath)] }
            if let scratchPath { parts += ["--scratch-path", Reproduction.quote(scratchPath)] }
            if shuffleSwiftTestingTests { parts.append("--shuffle-swift-testing-tests") }
            if let configuration { parts += ["-c", configuration] }
            for f in filter { parts += ["--filter", Reproduction.quote(f)] }
            for s in skip { parts += ["--skip", Reproduction.quote(s)] }
            return parts.joined(separator: " ")
        }

        /// A path relative to the current directory when it is inside it.
        private func displayPath(_ url: URL) -> String {
            let cwd = FileManager.default.currentDirectoryPath
            return url.path.hasPrefix(cwd + "/") ? String(url.path.dropFirst(cwd.count + 1)) : url.path
        }
    }
}

extension TestList {
    /// Every test, XCTest first, in the default order.
    var all: [String] { xctest + swiftTesting }
}
