import XCTest
import Crashy

final class CrashyXCTests: XCTestCase {
    func testA_passes() {
        XCTAssertEqual(Crashy.double(2), 4)
    }

    /// Crashes (index out of range) when CRASHY_CRASH=1.
    func testB_crashes() {
        let crash = ProcessInfo.processInfo.environment["CRASHY_CRASH"] == "1"
        XCTAssertEqual(Crashy.element([1, 2, 3], at: crash ? 5 : 0), 1)
    }

    func testC_fails() {
        XCTAssertEqual(Crashy.double(2), 5, "double is wrong")
    }

    /// Never ends when CRASHY_HANG=1.
    func testD_hangsWhenAsked() {
        let hang = ProcessInfo.processInfo.environment["CRASHY_HANG"] == "1"
        XCTAssertEqual(Crashy.wait(forever: hang), 1)
    }

    func testE_skips() throws {
        throw XCTSkip("not on this platform")
    }

    func testF_measures() {
        measure { _ = (0..<1000).map(Crashy.double) }
    }
}

final class LaterXCTests: XCTestCase {
    func testRunsAfterTheCrash() {
        XCTAssertEqual(Crashy.double(3), 6)
    }
}
