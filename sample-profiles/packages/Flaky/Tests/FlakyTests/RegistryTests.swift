import Flaky
import XCTest

/// Polluter → victim where the pollution makes the victim crash (a force unwrap of a removed handler).
final class RegistryTests: XCTestCase {
    /// Victim that crashes after `ShutdownTests.testShutdownRemovesHandlers`.
    func testDefaultHandlerDoubles() {
        let handler = Registry.handlers["default"]!
        XCTAssertEqual(handler(21), 42)
    }
}

final class ShutdownTests: XCTestCase {
    /// Polluter: removes every handler.
    func testShutdownRemovesHandlers() {
        Registry.handlers.removeAll()
        XCTAssertTrue(Registry.handlers.isEmpty)
    }

    /// Hangs when FLAKY_HANG=1 (for the timeout tests); passes at once otherwise.
    func testWaitsForShutdown() {
        if ProcessInfo.processInfo.environment["FLAKY_HANG"] == "1" {
            while true { sleep(1) }
        }
    }
}
