import XCTest
import Lookalikes

/// Same class name as LookalikesIntegrationTests.FileHandleTests; `testInfo` is in both, and fails here.
final class FileHandleTests: XCTestCase {
    func testInfo() {
        XCTAssertEqual(size(of: "abc"), 4, "fails in LookalikesTests only")
    }

    func testOpen() {
        XCTAssertEqual(size(of: ""), 0)
    }
}
