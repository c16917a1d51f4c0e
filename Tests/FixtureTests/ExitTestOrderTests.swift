import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeTestResults
import XCTest

/// Orders on the ExitTests fixture (sample-profiles/packages/ExitTests): Swift Testing exit tests, whose
/// bodies run in a child process of the same binary, pass in an order as in `swift test`; a process that
/// exits without a crash before the end of its order is relaunched for the rest, with a warning.
final class ExitTestOrderTests: XCTestCase {
    static let package = FlakyFixture.repoRoot.appendingPathComponent("sample-profiles/packages/ExitTests")
    var work: URL!

    override func setUpWithError() throws { work = try FlakyFixture.workFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    static func id(_ suffix: String) -> String { "ExitsTests." + suffix }
    static let exitTests = [id("ExitSuite/deepInputExitsCleanly()"), id("ExitSuite/givingUpExitsWithAFailure()")]
    static let quitter = id("QuittingXCTests/testRunsBeforeTheProcessEnds")

    func executor(quit: String? = nil, warnings: Locked<[String]>? = nil) throws -> (OrderExecutor, FlakyTestBinary) {
        let binary = try FlakyFixture.binary(of: Self.package)
        var environment = ProcessInfo.processInfo.environment
        environment["EXITS_QUIT"] = quit
        let executor = OrderExecutor(binary: binary, workDirectory: work, testTimeout: 60, environment: environment,
                                     warn: { warning in warnings?.withLock { $0.append(warning.message) } })
        return (executor, binary)
    }

    func testExitTestsPassInAnOrderAndEveryTestOfItRuns() throws {
        let (executor, binary) = try executor()
        // XCTest first: the child of an exit test must not run the order again (it did, and truncated the stream).
        let order = binary.tests.xctest.filter { $0 != Self.quitter } + binary.tests.swiftTesting.reversed()
        XCTAssertEqual(order.count, 6)
        let run = try executor.execute(order)
        XCTAssertEqual(run.notRun, [])
        XCTAssertEqual(run.processes, [order], "one process, no relaunch")
        for id in order { XCTAssertEqual(run.results[id]?.outcome, .passed, id) }
        // Each exit test alone (the reproduction command's order).
        for id in Self.exitTests {
            let alone = try executor.execute([id])
            XCTAssertEqual(alone.results[id]?.outcome, .passed, "\(id): \(String(describing: alone.results[id]))")
        }
    }

    func testAProcessThatExitsBeforeTheEndOfItsOrderIsRelaunchedForTheRestAndSaysSo() throws {
        let warnings = Locked<[String]>([])
        let (executor, _) = try executor(quit: "tearDown", warnings: warnings)
        let order = [Self.quitter, Self.id("PlainXCTests/testShallowInput"), Self.exitTests[0]]
        let run = try executor.execute(order)
        XCTAssertEqual(run.processes, [[order[0]], Array(order[1...])], "relaunched after the class's tearDown ended the process")
        XCTAssertEqual(run.notRun, [])
        for id in order { XCTAssertEqual(run.results[id]?.outcome, .passed, id) }
        XCTAssertEqual(warnings.withLock { $0 }, ["the test process exited (status 0, no crash) after 1 of 3 test(s) of an order; "
            + "relaunched for the 2 after \(Self.quitter)"])
        // A process that runs none of its tests is not relaunched: its tests did not run, and it is said.
        let (quitEarly, _) = try self.executor(quit: "setUp", warnings: warnings)
        let none = try quitEarly.execute(order)
        XCTAssertEqual(none.notRun, order)
        XCTAssertEqual(RunTally(none).counts, ["0 passed", "0 failed", "3 not run"])
        XCTAssertEqual(warnings.withLock { $0 }.last, "the test process exited (status 0, no crash) after 0 of 3 test(s) of an order; "
            + "not relaunched: it ran none of them")
    }
}
