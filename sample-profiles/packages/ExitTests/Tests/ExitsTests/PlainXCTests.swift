import Exits
import XCTest

final class PlainXCTests: XCTestCase {
    func testShallowInput() {
        XCTAssertEqual(Nesting.depth(of: "a"), 0)
    }

    func testTooDeepInputIsRefused() {
        XCTAssertNil(Nesting.depth(of: String(repeating: "[", count: 40)))
    }
}
