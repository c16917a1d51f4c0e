import TestscopeProfileData
import XCTest

/// The three outcomes of a counter lookup, as llvm-cov sees them.
final class ProfileCountersTests: XCTestCase {
    func testLookupFindsMismatchesAndUnknowns() {
        let counters = ProfileCounters(functions: [7: [0: [1, 2]]])
        XCTAssertEqual(counters.counters(nameRef: 7, funcHash: 0), .found([1, 2]))
        XCTAssertEqual(counters.counters(nameRef: 7, funcHash: 1), .hashMismatch)
        XCTAssertEqual(counters.counters(nameRef: 8, funcHash: 0), .unknown)
    }
}
