@testable import TestscopeFlakiness
import XCTest

/// The adaptive job count: results keep item order, and waiting work gets more threads than `jobs`.
final class AdaptivePoolTests: XCTestCase {
    func testResultsKeepTheirOrderWhateverTheThreadCount() throws {
        let (results, peak) = try AdaptivePool.map(40, jobs: 2, maxJobs: 8) { index -> Int in
            usleep(UInt32(20_000 * (index % 3)))
            return index * index
        }
        XCTAssertEqual(results, (0..<40).map { $0 * $0 })
        XCTAssertTrue((2...8).contains(peak), "peak \(peak)")
    }

    func testWaitingWorkGetsMoreThreadsWhileTheCPUsIdle() throws {
        // Every item sleeps (like a test process waiting on XCTest's thread hops) and the CPUs are
        // reported idle: the pool grows past `jobs`, but never past `maxJobs`.
        let (_, peak) = try AdaptivePool.map(16, jobs: 1, maxJobs: 4, idleFraction: { 0.9 }) { _ in usleep(300_000) }
        XCTAssertGreaterThan(peak, 1)
        XCTAssertLessThanOrEqual(peak, 4)
    }

    func testBusyCPUsGetNoExtraThreads() throws {
        // The same work while the machine is reported busy: no thread is added.
        let (_, peak) = try AdaptivePool.map(8, jobs: 1, maxJobs: 4, idleFraction: { 0.1 }) { _ in usleep(100_000) }
        XCTAssertEqual(peak, 1)
    }

    func testAFixedJobCountStaysFixed() throws {
        let (_, peak) = try AdaptivePool.map(6, jobs: 2, maxJobs: nil) { _ in usleep(100_000) }
        XCTAssertEqual(peak, 2)
    }

    #if os(Linux)
    func testTheIdleFractionIsAFraction() throws {
        var sampler = try XCTUnwrap(CPUIdleSampler(), "/proc/stat is readable on Linux")
        usleep(100_000)
        let idle = try XCTUnwrap(sampler.idleFraction())
        XCTAssertTrue((0...1).contains(idle), "\(idle)")
    }
    #endif

    func testTheFirstErrorStopsTheWork() {
        XCTAssertThrowsError(try AdaptivePool.map(20, jobs: 2, maxJobs: 6) { index -> Int in
            if index == 3 { throw CocoaError(.fileNoSuchFile) }
            return index
        })
    }
}
