import Foundation
import Runaway
import XCTest

/// What each test does is chosen by the environment, so that one build serves every scenario:
/// RUNAWAY_SLEEP=1 makes `testB_sleepsWhenAsked` sleep for 10 minutes (to be interrupted);
/// RUNAWAY_ORPHAN=1 makes `testC_leavesAProcessBehind` start `/bin/sleep 600` and return.
final class RunawayXCTests: XCTestCase {
    func testA_halves() {
        XCTAssertEqual(half(4), 2)
    }

    func testB_sleepsWhenAsked() {
        if ProcessInfo.processInfo.environment["RUNAWAY_SLEEP"] == "1" {
            Thread.sleep(forTimeInterval: 600)
        }
    }

    /// Like a test that starts a server and talks to it: 0.1 s of work on each side of the start, so
    /// the start (which the process table dates to 10 ms) falls within this test alone.
    func testC_leavesAProcessBehind() throws {
        if ProcessInfo.processInfo.environment["RUNAWAY_ORPHAN"] == "1" {
            Thread.sleep(forTimeInterval: 0.1)
            XCTAssertGreaterThan(try startBackgroundSleep(seconds: 600), 0)
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    func testD_runsAfterwards() {
        XCTAssertEqual(half(9), 4)
    }
}
