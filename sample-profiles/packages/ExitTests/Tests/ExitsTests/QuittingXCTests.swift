import Exits
import Foundation
import XCTest

/// A class whose process ends, with status 0 and no test running, when `EXITS_QUIT` asks for it:
/// `setUp` before its test reports, `tearDown` after it (the tests after it in the process never run).
final class QuittingXCTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        if ProcessInfo.processInfo.environment["EXITS_QUIT"] == "setUp" { exit(0) }
    }

    override class func tearDown() {
        if ProcessInfo.processInfo.environment["EXITS_QUIT"] == "tearDown" { exit(0) }
        super.tearDown()
    }

    func testRunsBeforeTheProcessEnds() {
        XCTAssertEqual(Nesting.depth(of: "[x]"), 1)
    }
}
