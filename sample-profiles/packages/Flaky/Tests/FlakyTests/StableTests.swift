import Flaky
import XCTest

/// Tests that pass in every order.
final class MathTests: XCTestCase {
    func testAdds() {
        XCTAssertEqual(add(2, 3), 5)
    }

    func testAddsNegatives() {
        XCTAssertEqual(add(-2, -3), -5)
    }
}

/// Non-order-dependent flakiness: fails about half of the time whatever ran before it.
final class NetworkTests: XCTestCase {
    func testRetriesWithJitter() {
        let timedOut = Bool.random()
        XCTAssertFalse(timedOut, "simulated timeout (fails at random, p = 0.5)")
    }
}

/// A test that fails in every order, and one that is always skipped.
final class LegacyTests: XCTestCase {
    func testAlwaysFails() {
        XCTFail("the legacy importer is broken")
    }

    func testSkippedEverywhere() throws {
        throw XCTSkip("not supported")
    }
}
