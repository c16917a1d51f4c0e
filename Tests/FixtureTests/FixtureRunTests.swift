import Foundation
import TestscopeFlakiness
import TestscopeReports
import TestscopeTestResults
import XCTest

/// Real runs of the Flaky fixture: a fixed-seed detection finds exactly the planted cases with their
/// polluters, setters and cleaner; the raw-binary reproduction commands fail as they should; the
/// result does not depend on --jobs.
final class FixtureRunTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = try FlakyFixture.workFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: work)
    }

    func detect(seed: UInt64 = 7, runs: Int = 12, jobs: Int, filters: [String] = [], forceRepetition: Bool = false) throws -> FlakyReport {
        let binary = try FlakyFixture.binary()
        let executor = OrderExecutor(binary: binary, workDirectory: work, testTimeout: 60)
        let detector = FlakyDetector(binary: binary, executor: executor, logsFolder: work.appendingPathComponent("logs"))
        let options = FlakyOptions(runs: runs, seed: seed, jobs: jobs, filters: filters, forceRepetition: forceRepetition)
        return try detector.detect(options, reproduction: Reproduction(testscopePrefix: "testscope flaky", binaryPath: binary.binary.path),
                                   packageRoot: FlakyFixture.package.path) { _ in }
    }

    /// The NOD test fails with probability 1/2 in each run. With 12 runs it shows both outcomes except
    /// with probability 2 · 2^-12 ≈ 0.05 %; once it has, being taken for order-dependent needs its failing
    /// prefix to fail 3 times, its passing prefix to pass 3 times, 3 equal runs alone and 3 failing runs
    /// of a minimal order: at most 2^-11 ≈ 0.05 %. So this test fails by chance less than 0.1 % of the time.
    func testFixedSeedRunFindsExactlyThePlantedCases() throws {
        let report = try detect(jobs: 2)
        let findings = Dictionary(uniqueKeysWithValues: report.findings.map { ($0.id, $0) })
        // Ids as `swift test list` prints them, every listed test once.
        XCTAssertEqual(Set(findings.keys), Set(try FlakyFixture.recordedList()))
        XCTAssertEqual(report.findings.count, try FlakyFixture.recordedList().count)
        for (id, finding) in findings {
            XCTAssertEqual(finding.classification, FlakyFixture.expected[id] ?? .stable, "\(id): \(finding.evidence.map(\.label))")
            XCTAssertEqual(finding.method, .inProcessOrder, id)
        }
        let f = { (id: String) in findings[id]! }
        XCTAssertEqual(f(FlakyFixture.cacheVictim).polluters, [FlakyFixture.cachePolluter])
        XCTAssertEqual(f(FlakyFixture.cacheVictim).cleaners, [FlakyFixture.cacheCleaner])
        XCTAssertEqual(Set(f(FlakyFixture.formatterVictim).polluters), [FlakyFixture.localePolluter, FlakyFixture.tsvPolluter])
        XCTAssertEqual(f(FlakyFixture.formatterVictim).polluterGroups.count, 2, "each polluter alone is enough")
        XCTAssertEqual(f(FlakyFixture.crashVictim).polluters, [FlakyFixture.crashPolluter])
        XCTAssertTrue(f(FlakyFixture.crashVictim).failures.allSatisfy { $0.result.outcome == .crashed }, "the pollution makes it crash")
        XCTAssertEqual(f(FlakyFixture.counterVictim).polluters, [FlakyFixture.counterPolluter], "Swift Testing takes part in the orders")
        XCTAssertEqual(f(FlakyFixture.brittle).setters, [FlakyFixture.setter])
        XCTAssertEqual(f(FlakyFixture.brittle).failingOrder, [FlakyFixture.brittle])
        XCTAssertEqual(f(FlakyFixture.alwaysFails).failedRuns, 12)
        for id in [FlakyFixture.cacheVictim, FlakyFixture.formatterVictim, FlakyFixture.crashVictim, FlakyFixture.counterVictim] {
            XCTAssertEqual(f(id).verdicts[0], .pass, "\(id) passes in the default order")
            XCTAssertEqual(f(id).failingOrder?.last, id)
            XCTAssertEqual(f(id).failingOrder?.count, 2, "minimal order: polluter, victim")
        }
        // The plan: baseline, reverse, shuffles; the crash made the runs that hit it relaunch.
        XCTAssertEqual(report.orders.map(\.kind).prefix(3), [.default, .reverse, .classShuffle])
        XCTAssertTrue(report.executions.contains { $0.relaunches > 0 })
        XCTAssertTrue(report.executions.allSatisfy { $0.notRun.isEmpty }, "every test ran in every run")

        // The raw-binary reproduction of every order-dependent failure fails; the passing order passes.
        for finding in report.findings where [.odVictim, .odBrittle].contains(finding.classification) {
            let command = try XCTUnwrap(report.reproduce(finding)?.binary)
            let failing = try shell(command)
            XCTAssertNotEqual(failing.status, 0, "\(command)\n\(failing.output)")
            XCTAssertTrue(failing.output.contains(finding.framework == .xctest ? "error: \(TestIdentity.xctestKey(of: finding.id))" : "Expectation failed")
                          || failing.output.contains("Fatal error"), failing.output)
            let passing = try shell(Reproduction(testscopePrefix: "", binaryPath: report.binary).binary(order: try XCTUnwrap(finding.passingOrder)))
            XCTAssertEqual(passing.status, 0, passing.output)
        }
    }

    func testOrdersAndClassificationDoNotDependOnJobs() throws {
        let one = try detect(seed: 11, runs: 6, jobs: 1, filters: ["CacheTests", "SessionTests", "AuthTests", "Formatter", "Locale", "TSV"])
        let two = try detect(seed: 11, runs: 6, jobs: 2, filters: ["CacheTests", "SessionTests", "AuthTests", "Formatter", "Locale", "TSV"])
        XCTAssertEqual(one.orders, two.orders)
        XCTAssertEqual(one.findings.map(\.id), two.findings.map(\.id))
        for (a, b) in zip(one.findings, two.findings) {
            XCTAssertEqual(a.classification, b.classification, a.id)
            XCTAssertEqual(a.verdicts, b.verdicts, a.id)
            XCTAssertEqual(a.polluterGroups, b.polluterGroups, a.id)
            XCTAssertEqual(a.setterGroups, b.setterGroups, a.id)
            XCTAssertEqual(a.cleaners, b.cleaners, a.id)
            XCTAssertEqual(a.evidence, b.evidence, a.id)
        }
        XCTAssertEqual(one.findings.first { $0.id == FlakyFixture.cacheVictim }?.classification, .odVictim)
    }

    func testSwiftTestingFallsBackToRepetitionAndSaysSo() throws {
        let report = try detect(seed: 3, runs: 3, jobs: 2, filters: ["CounterSuite", "CacheTests"], forceRepetition: true)
        XCTAssertEqual(report.swiftTestingMethod, .repetition)
        let counter = try XCTUnwrap(report.findings.first { $0.id == FlakyFixture.counterVictim })
        XCTAssertEqual(counter.method, .repetition)
        XCTAssertEqual(counter.runs, 3, "repeated in every run")
        XCTAssertFalse(report.orders.contains { $0.tests.contains(FlakyFixture.counterVictim) }, "not in the orders")
        XCTAssertEqual(report.findings.first { $0.id == FlakyFixture.cacheVictim }?.classification, .odVictim)
        XCTAssertEqual(report.findings.first { $0.id == FlakyFixture.cacheVictim }?.method, .inProcessOrder)
    }

    func shell(_ command: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " 2>&1"]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "interactive=no"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
