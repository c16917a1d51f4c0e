import LoopFilter
import XCTest

final class LoopFilterTests: XCTestCase {
    func testFirstEven() {
        XCTAssertEqual(firstEven([1, 3, 4, 5]), 4)
        XCTAssertNil(firstEven([1, 3]))
        XCTAssertGreaterThan(banner().count, 200)
    }

    /// One assertion that fails for each of three values: three failures on one line.
    func testRepeatedFailureOnOneLine() {
        for value in [1, 2, 3] {
            XCTAssertEqual(value, 0, "value \(value) is not zero")
        }
    }
}
