import XCTest
@testable import Hostile

final class HostileTests: XCTestCase {
    func testMarkupIsJustText() {
        XCTAssertTrue(Hostile.`<script>alert("x&y")</script>`().hasPrefix("</textarea>"))
        XCTAssertEqual(Hostile.tagged(true), "<img src=x onerror=alert(3)>")
        XCTAssertEqual(Hostile.wrap("<&>"), ["<&>"])
    }
}
