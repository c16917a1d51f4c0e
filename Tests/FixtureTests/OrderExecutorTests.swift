import Foundation
import TestscopeFlakiness
import TestscopeRun
import TestscopeTestResults
import XCTest

/// One order in one process, on the real fixture binary: the order is kept (also across libraries), a
/// crash is attributed and the rest continues in a new process, a hang is killed after the timeout, and
/// the binary without an order is SwiftPM's default runner.
final class OrderExecutorTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws { work = try FlakyFixture.workFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    func executor(timeout: Double = 60, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> OrderExecutor {
        let binary = try FlakyFixture.binary()
        return OrderExecutor(binary: binary, workDirectory: work, testTimeout: timeout, environment: environment)
    }

    func testAnInterleavedOrderRunsInOneProcessInThatOrder() throws {
        let order = [FlakyFixture.counterPolluter, FlakyFixture.cachePolluter, FlakyFixture.counterVictim, FlakyFixture.cacheVictim,
                     FlakyFixture.id("onTheMainActor()"), FlakyFixture.stableMath]
        let run = try executor().execute(order)
        XCTAssertEqual(run.processes, [order], "one process, in the given order")
        XCTAssertEqual(run.results[FlakyFixture.counterVictim]?.outcome, .failed, "polluted in-process by the Swift Testing polluter")
        XCTAssertEqual(run.results[FlakyFixture.cacheVictim]?.outcome, .failed)
        XCTAssertEqual(run.results[FlakyFixture.id("onTheMainActor()")]?.outcome, .passed, "a @MainActor test does not deadlock")
        XCTAssertEqual(run.results[FlakyFixture.stableMath]?.outcome, .passed)
        XCTAssertEqual(run.prefix(of: FlakyFixture.cacheVictim), Array(order.prefix(3)))
        XCTAssertEqual(run.results[FlakyFixture.cacheVictim]?.issues.first?.message, "XCTAssertTrue failed - the cache should start empty")
    }

    func testSwiftTestingTestsInTheirSerialOrderRunInOneCallAndOthersApart() throws {
        let serial = [FlakyFixture.counterVictim, FlakyFixture.counterPolluter, FlakyFixture.id("freeFunctionIsStable()")]
        let ranks = try FlakyFixture.binary().swiftTestingRanks
        XCTAssertEqual(SwiftTestingOrder.batchedLines(serial, ranks: ranks), [serial.joined(separator: "\t")])
        let batched = try executor().execute(serial)
        XCTAssertEqual(serial.map { batched.results[$0]?.outcome }, [.passed, .passed, .passed])
        let started = serial.compactMap { batched.results[$0]?.startedAt }
        XCTAssertEqual(started.count, 3)
        XCTAssertEqual(started, started.sorted(), "Swift Testing ran the batch in the order given")
        // Against the serial order: one call each, and the order holds (the victim runs polluted).
        let reversed = [FlakyFixture.counterPolluter, FlakyFixture.counterVictim]
        XCTAssertEqual(SwiftTestingOrder.batchedLines(reversed, ranks: ranks), reversed)
        XCTAssertEqual(try executor().execute(reversed).results[FlakyFixture.counterVictim]?.outcome, .failed)
    }

    func testACrashIsAttributedAndTheRestRunsInANewProcess() throws {
        let order = [FlakyFixture.crashPolluter, FlakyFixture.crashVictim, FlakyFixture.cachePolluter, FlakyFixture.cacheVictim, FlakyFixture.counterVictim]
        let run = try executor().execute(order)
        XCTAssertEqual(run.processes, [Array(order.prefix(2)), Array(order.suffix(3))])
        let crash = try XCTUnwrap(run.results[FlakyFixture.crashVictim])
        XCTAssertEqual(crash.outcome, .crashed)
        XCTAssertEqual(crash.crash?.fatalError?.contains("Unexpectedly found nil while unwrapping an Optional value"), true, "\(String(describing: crash.crash))")
        XCTAssertEqual(run.results[FlakyFixture.cacheVictim]?.outcome, .failed, "the order goes on: polluted in the new process")
        XCTAssertEqual(run.results[FlakyFixture.counterVictim]?.outcome, .passed)
        XCTAssertEqual(run.prefix(of: FlakyFixture.cacheVictim), [FlakyFixture.cachePolluter], "the prefix is what ran in the same process")
    }

    func testAHangIsKilledAfterTheTimeoutAndTheRestRuns() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["FLAKY_HANG"] = "1"
        let started = Date()
        let run = try executor(timeout: 1, environment: environment).execute([FlakyFixture.hangWhenAsked, FlakyFixture.stableMath, FlakyFixture.counterVictim])
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertEqual(run.results[FlakyFixture.hangWhenAsked]?.outcome, .timedOut)
        XCTAssertEqual(run.results[FlakyFixture.stableMath]?.outcome, .passed)
        XCTAssertEqual(run.results[FlakyFixture.counterVictim]?.outcome, .passed)
        XCTAssertEqual(run.processes.count, 2)
    }

    func testWithoutAnOrderTheBinaryIsTheDefaultRunner() throws {
        let binary = try FlakyFixture.binary().binary
        XCTAssertEqual(Set(try FlakyFixture.binary().tests.xctest + FlakyFixture.binary().tests.swiftTesting), Set(try FlakyFixture.recordedList()),
                       "the binary lists what `swift test list` lists")
        let xctest = try run(binary, ["FlakyTests.MathTests"])
        XCTAssertEqual(xctest.status, 0, xctest.output)
        XCTAssertTrue(xctest.output.contains("Executed 2 tests, with 0 failures"), xctest.output)
        let swiftTesting = try run(binary, ["--testing-library", "swift-testing", "--filter", "freeFunctionIsStable"])
        XCTAssertEqual(swiftTesting.status, 0, swiftTesting.output)
        XCTAssertTrue(swiftTesting.output.contains("Test run with 1 test"), swiftTesting.output)
    }

    /// The binary is built with coverage (the build `run` shares): flaky's runs write no profile, neither into
    /// the current folder nor where the caller's `LLVM_PROFILE_FILE` says.
    func testOrdersWriteNoProfile() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LLVM_PROFILE_FILE"] = work.appendingPathComponent("leak-%p.profraw").path
        let run = try executor(environment: environment).execute([FlakyFixture.stableMath, FlakyFixture.counterVictim])
        XCTAssertEqual(run.results[FlakyFixture.stableMath]?.outcome, .passed)
        XCTAssertEqual(run.results[FlakyFixture.counterVictim]?.outcome, .passed)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasSuffix(".profraw") }, [])
    }

    func testTheGeneratedEntryPointMatchesTheRecordedOne() throws {
        let recorded = try String(contentsOf: FlakyFixture.recorded.appendingPathComponent("entry-point.swift"), encoding: .utf8)
        XCTAssertEqual(EntryPointSource.source(packageName: "Flaky"), recorded,
                       "re-record with sample-profiles/packages/Flaky/record-flaky.sh when the entry point changes on purpose")
    }

    func run(_ binary: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: EntryPointSource.orderFileVariable)
        environment.removeValue(forKey: EntryPointSource.orderVariable)
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
