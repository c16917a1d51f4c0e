import Foundation
import Testing
import Warnings
import XCTest

final class LegacyTests: XCTestCase {
    func testCalls() { XCTAssertEqual(callsOfTheOldWay().count, 200) }
    func testDescribe() { XCTAssertEqual(describe(3), "value 3") }
    /// Long enough for the status line to say which test is running.
    func testTakesLong() { Thread.sleep(forTimeInterval: 7); XCTAssertEqual(total([1, 2]), 3) }
}

/// Six cases of one test: the status line counts them as six results, as the final screen does.
@Test(arguments: 1...6) func totals(_ n: Int) { #expect(total([n, n]) == 2 * n) }
