import XCTest
import Lookalikes

/// Same class name as LookalikesTests.FileHandleTests; `testInfo` is in both, and passes here.
final class FileHandleTests: XCTestCase {
    func testInfo() {
        XCTAssertEqual(size(of: "abc"), 3)
    }

    func testRead() {
        XCTAssertEqual(size(of: "é"), 2)
    }
}
