import Foundation
import Selection
import XCTest

final class ArithmeticTests: XCTestCase {
    func testAdds() { XCTAssertEqual(add(2, 3), 5) }
    func testAddsZero() { XCTAssertEqual(add(7, 0), 7) }
}

final class ChanceTests: XCTestCase {
    /// Fails on its first attempt when SELECTION_CHANCE_DIR is set, passes on every later one.
    func testPassesOnSecondAttempt() {
        let folder = ProcessInfo.processInfo.environment["SELECTION_CHANCE_DIR"]
        XCTAssertFalse(firstAttempt("xctest", markerFolder: folder), "failed by chance on the first attempt")
    }
}
