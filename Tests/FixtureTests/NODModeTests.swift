import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeKit
import TestscopeReports
import TestscopeRun
import XCTest

/// The NOD modes on real binaries: a one-core run's process keeps to its CPU, the stress load loads the
/// CPUs and stops, a parallel run hands Swift Testing its tests in one call, and the stable tests of the
/// FlakyCauses corpus stay stable under every mode.
final class NODModeTests: XCTestCase {
    static let corpus = FlakyFixture.repoRoot.appendingPathComponent("sample-profiles/packages/FlakyCauses")

    /// The generated entry point keeps the whole process (threads started later included) to the CPU
    /// `TESTSCOPE_CPU` names: read from /proc while a test of the fixture hangs on purpose.
    func testAOneCoreRunKeepsToItsCPU() throws {
        let binary = try FlakyFixture.binary().binary
        let cpu = ProcessInfo.processInfo.activeProcessorCount - 1
        let process = Process()
        process.executableURL = binary
        var environment = ProcessInfo.processInfo.environment
        environment["FLAKY_HANG"] = "1"
        environment["LLVM_PROFILE_FILE"] = "/dev/null"
        environment[EntryPointSource.orderVariable] = FlakyFixture.hangWhenAsked
        for (key, value) in NODMode.oneCore.environment(run: cpu) { environment[key] = value }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var allowed = ""
        let deadline = Date().addingTimeInterval(20)
        // The test hangs: the process lives until we end it. Its allowed CPUs change once main has run.
        while Date() < deadline {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            allowed = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
                .map { $0.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces) } ?? ""
            let threads = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }.flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0
            if allowed == String(cpu), threads > 1 { break }
            usleep(50_000)
        }
        XCTAssertEqual(allowed, String(cpu), "the process of a one-core run keeps to CPU \(cpu)")
        XCTAssertEqual(NODMode.parallel.environment(run: 0)[EntryPointSource.parallelVariable], "1")
        XCTAssertTrue(NODMode.plain.environment(run: 0).isEmpty)
    }

    /// The stress load uses the CPUs while it runs and stops when told (its threads end: `stop` returns).
    func testTheStressLoadLoadsTheCPUsAndStops() throws {
        func cpuSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        }
        let before = cpuSeconds()
        let load = StressLoad(threads: 2)
        Thread.sleep(forTimeInterval: 1)
        let stopped = Date()
        load.stop()
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 2, "the load threads end promptly")
        let used = cpuSeconds() - before
        // Not 2 s: the machine running the tests is busy too (the threads only compete for the CPUs).
        XCTAssertGreaterThan(used, 0.1, "two spinning threads for a second use CPU time")
        let after = cpuSeconds()
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertLessThan(cpuSeconds() - after, 0.15, "nothing spins after stop()")
    }

    /// A parallel run gives Swift Testing consecutive tests in one call whatever their serial order (a
    /// serial run would split an order against it into one call per test).
    func testAParallelRunBatchesSwiftTestingTestsWhateverTheirOrder() throws {
        let ranks = try FlakyFixture.binary().swiftTestingRanks
        let reversed = [FlakyFixture.counterPolluter, FlakyFixture.counterVictim]
        XCTAssertEqual(SwiftTestingOrder.batchedLines(reversed, ranks: ranks), reversed)
        XCTAssertEqual(SwiftTestingOrder.batchedLines(reversed, ranks: ranks, parallel: true), [reversed.joined(separator: "\t")])
        let mixed = [FlakyFixture.counterPolluter, FlakyFixture.stableMath, FlakyFixture.counterVictim]
        XCTAssertEqual(SwiftTestingOrder.batchedLines(mixed, ranks: ranks, parallel: true), mixed, "an XCTest method in between splits the call")
    }

    /// Every mode on the corpus's stable tests (generous thresholds, a task, a Set): no false flag, and
    /// the reports say which mode each run took.
    func testTheCorpusStableTestsStayStableUnderEveryMode() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nod-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let (pipeline, console) = FlakyFixture.capturedPipeline(quiet: false)
        var request = FlakyRequest(packageRoot: Self.corpus, settings: ReportSettings(formats: [.json], output: output))
        request.selection.filters = ["StableTests"]
        request.nodModes = NODMode.allCases
        (request.seed, request.runs, request.jobs) = (5, 8, 2)
        request.commandPrefix = request.reproductionPrefix(packagePath: "FlakyCauses", scratchPath: nil)
        let outcome = try pipeline.flaky(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        let report = try XCTUnwrap(outcome.flaky)
        XCTAssertEqual(report.findings.count, 5)
        XCTAssertEqual(report.findings.filter { $0.classification != .stable }.map(\.id), [], console.outputText)
        XCTAssertEqual(report.orders.map(\.mode), (0..<8).map { NODMode.allCases[$0 % 4] })
        XCTAssertEqual(report.executions.map(\.mode), report.orders.map(\.mode))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("flaky.json"))) as? [String: Any])
        XCTAssertEqual(json["modes"] as? [String], ["plain", "stress", "one-core", "parallel"])
        let orders = try XCTUnwrap(json["orders"] as? [[String: Any]])
        XCTAssertEqual(orders.map { $0["mode"] as? String }, report.orders.map(\.mode.rawValue))
        XCTAssertTrue(console.outputText.contains("under 4 modes (plain, stress, one-core, parallel)"), console.outputText)
        XCTAssertTrue(console.outputText.contains("--filter StableTests --seed 5 --replay K --runs 8 --nod-modes plain,stress,one-core,parallel\n"),
                      "a replay needs the same modes:\n\(console.outputText)")
    }
}
