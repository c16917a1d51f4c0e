import XCTest
import CClamp
import CFamily

/// Calls the C code through Swift: every branch of `cclamp` except `lo > hi`, and both
/// conditions of the `&&` in `cclamp_in_range`, once true and once false.
final class CFamilyTests: XCTestCase {
    func testClamp() {
        XCTAssertEqual(Clamp.clamp(-5, 0, 10), 0)   // x < lo
        XCTAssertEqual(Clamp.clamp(5, 0, 10), 5)    // MIN takes x
        XCTAssertEqual(Clamp.clamp(50, 0, 10), 10)  // MIN takes hi
    }

    func testInRange() {
        XCTAssertTrue(Clamp.contains(3, 0, 10))     // both conditions true
        XCTAssertFalse(Clamp.contains(-1, 0, 10))   // first condition false (short circuit)
        XCTAssertFalse(Clamp.contains(11, 0, 10))   // second condition false
    }

    func testDirectCall() {
        XCTAssertEqual(cclamp(7, 1, 3), 3)          // C called directly from the test
    }
}
