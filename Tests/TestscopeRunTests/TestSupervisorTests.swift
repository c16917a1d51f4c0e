import Foundation
import TestscopeExecution
import TestscopeTestResults
import XCTest
@testable import TestscopeRun

/// The supervisor on a fake test binary: crash blame, the two relaunch policies, the timeout killing
/// the whole process group, and the Swift Testing blame policy.
final class TestSupervisorTests: XCTestCase {
    var folder: URL!
    var binary: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("supervisor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        binary = try FakeTestBinary.install(in: folder)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func supervisor(_ policy: SupervisionPolicy, timeout: Double? = nil) -> TestSupervisor {
        var env = TestSupervisor.testEnvironment(ProcessInfo.processInfo.environment, noColor: true)
        env["FAKE_PIDS"] = folder.appendingPathComponent("pids").path
        return TestSupervisor(binary: binary, environment: env, policy: policy, timeout: timeout, moduleForClass: ["Fake": "FakeTests"])
    }

    /// XCTest's way of launching a subset: the specifiers comma-joined.
    func xctestLaunch(_ tests: [String], _ attempt: Int) -> TestLaunch { TestLaunch(arguments: [tests.joined(separator: ",")]) }

    func outcome(_ run: SupervisedRun, _ name: String) -> TestOutcome? {
        run.processes.flatMap(\.results).last { $0.id == FakeTestBinary.id(name) }?.outcome
    }

    func testACrashIsBlamedOnTheRunningTestAndTheRestRelaunched() throws {
        let tests = ["testA", "testCrash", "testB"].map(FakeTestBinary.id)
        let run = try supervisor(TestRunCoordinator.policy).run(tests, launch: xctestLaunch)
        XCTAssertEqual(run.processes.map(\.tests), [tests, [FakeTestBinary.id("testB")]])
        XCTAssertEqual(run.processes.first?.blamed, FakeTestBinary.id("testCrash"))
        let crashed = try XCTUnwrap(run.processes.first?.results.first { $0.name == "testCrash" })
        XCTAssertEqual(crashed.outcome, .crashed)
        XCTAssertEqual(crashed.crash?.signal, 11)
        XCTAssertEqual(crashed.crash?.fatalError?.contains("Fatal error: boom"), true)
        XCTAssertEqual(outcome(run, "testA"), .passed)
        XCTAssertEqual(outcome(run, "testB"), .passed)
        XCTAssertEqual(run.relaunches, 1)
        XCTAssertEqual(run.notRun, [])
    }

    func testADeathBetweenTestsRelaunchesEveryUnreportedTestForRun() throws {
        let tests = ["testDieAfter", "testB", "testC"].map(FakeTestBinary.id)
        let run = try supervisor(TestRunCoordinator.policy).run(tests, launch: xctestLaunch)
        XCTAssertEqual(run.processes.map(\.tests), [tests, Array(tests.suffix(2))])
        XCTAssertNil(run.processes.first?.blamed, "run blames no test for a death between tests")
        XCTAssertEqual(["testDieAfter", "testB", "testC"].map { outcome(run, $0) }, [.passed, .passed, .passed])
    }

    func testADeathBetweenTestsBlamesTheFirstUnreportedTestForAnOrder() throws {
        let policy = SupervisionPolicy(relaunch: .restOfOrder, blameFirstInFlight: true)
        let tests = ["testDieAfter", "testB", "testC"].map(FakeTestBinary.id)
        let run = try supervisor(policy).run(tests, launch: xctestLaunch)
        XCTAssertEqual(run.processes.map(\.tests), [tests, [FakeTestBinary.id("testC")]], "the rest of the order after the blamed test")
        XCTAssertEqual(run.processes.first?.blamed, FakeTestBinary.id("testB"))
        let blamed = try XCTUnwrap(run.processes.first?.results.first { $0.id == FakeTestBinary.id("testB") })
        XCTAssertEqual(blamed.outcome, .crashed)
        XCTAssertEqual(blamed.crash?.reason, "the test process died before this test reported a result")
        XCTAssertEqual(outcome(run, "testC"), .passed)
    }

    func testATestPastTheTimeoutIsKilledWithItsWholeProcessGroupAndTheRestRuns() throws {
        let tests = ["testA", "testHang", "testB"].map(FakeTestBinary.id)
        let started = Date()
        let run = try supervisor(TestRunCoordinator.policy, timeout: 1).run(tests, launch: xctestLaunch)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "no background child kept the output pipe open")
        let hung = try XCTUnwrap(run.processes.first?.results.first { $0.name == "testHang" })
        XCTAssertEqual(hung.outcome, .timedOut)
        XCTAssertEqual(hung.crash?.reason, "killed after the 1 s timeout")
        XCTAssertEqual(hung.crash?.signal, 9)
        XCTAssertEqual(hung.duration, 1)
        XCTAssertTrue(run.processes.first?.timedOut == true)
        XCTAssertEqual(outcome(run, "testB"), .passed, "the rest ran in a relaunched process")
        let pids = try String(contentsOf: folder.appendingPathComponent("pids"), encoding: .utf8)
            .split(separator: "\n").compactMap { Int32($0) }
        XCTAssertEqual(pids.count, 2)
        let deadline = Date().addingTimeInterval(5)
        while pids.contains(where: { !FakeTestBinary.isGone($0) }), Date() < deadline { usleep(50_000) }
        for pid in pids { XCTAssertTrue(FakeTestBinary.isGone(pid), "background child \(pid) outlived the kill") }
    }

    func testSwiftTestingBlamePolicyDecidesWhetherTheFirstInFlightTestIsBlamed() throws {
        func crash(blameFirst: Bool) throws -> SupervisedProcess {
            let events = folder.appendingPathComponent("events-\(blameFirst).jsonl")
            let run = try supervisor(SupervisionPolicy(relaunch: .never, blameFirstInFlight: blameFirst))
                .run(["M.S/a()", "M.S/b()"]) { _, _ in
                    TestLaunch(arguments: ["--swift-testing-parallel-crash", events.path], eventStream: events)
                }
            XCTAssertEqual(run.processes.count, 1)
            return try XCTUnwrap(run.processes.first)
        }
        let parallel = try crash(blameFirst: false)
        XCTAssertTrue(parallel.interrupted)
        XCTAssertNil(parallel.blamed, "two tests in flight and no frame naming one: no guess")
        XCTAssertEqual(parallel.results.count, 0)
        // The line the reader could not trust is skipped, with one warning naming the stream and the line.
        XCTAssertEqual(parallel.warnings.map(\.line), [3])
        XCTAssertEqual(parallel.warnings.first?.file, folder.appendingPathComponent("events-false.jsonl").path)
        let serial = try crash(blameFirst: true)
        XCTAssertEqual(serial.blamed, "M.S/a()/F.swift:1:1")
        XCTAssertEqual(serial.results.map(\.name), ["a()"])
        XCTAssertEqual(serial.results.first?.outcome, .crashed)
        XCTAssertEqual(serial.results.first?.crash?.signal, 11)
    }

    func testTheOneTimeoutWording() {
        XCTAssertEqual(CrashEvidence.timeoutReason(2), "killed after the 2 s timeout")
        XCTAssertEqual(CrashEvidence.timeoutReason(2.5), "killed after the 2.5 s timeout")
        XCTAssertEqual(CrashEvidence.timeoutReason(nil), "killed after the timeout")
    }
}

/// XCTest's start stamps, read without a DateFormatter for the timeline of a test process.
final class XCTestStampTests: XCTestCase {
    func testLocalTimeMatchesDateFormatter() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        // From sample-profiles/recorded/Crashy/swift-test.log, and a moment in the other half of the year.
        for stamp in ["2026-11-21 08:17:18.667", "2026-06-30 23:59:59.001"] {
            let parsed = try XCTUnwrap(LiveProcess.localTime(Substring(stamp)))
            let expected = try XCTUnwrap(formatter.date(from: stamp))
            XCTAssertEqual(parsed.timeIntervalSince1970, expected.timeIntervalSince1970, accuracy: 0.0005, stamp)
        }
        XCTAssertNil(LiveProcess.localTime("not a time"))
    }
}
