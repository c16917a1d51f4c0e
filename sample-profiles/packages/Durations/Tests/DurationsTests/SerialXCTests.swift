import Durations
import XCTest

final class SerialXCTests: XCTestCase {
    func testBlocks300ms() { blockFor(0.3) }
}
