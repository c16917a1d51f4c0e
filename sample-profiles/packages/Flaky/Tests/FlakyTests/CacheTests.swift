import Flaky
import XCTest

/// Polluter → victim within one class, and a cleaner.
/// Default (sorted) order A, B, C: everything passes. B before A pollutes A; C between B and A cleans.
final class CacheTests: XCTestCase {
    /// Victim: passes alone, fails after `testB_storeKeepsValue` (unless `testC_clearEmptiesCache` ran in between).
    func testA_lookupStartsEmpty() {
        XCTAssertTrue(Cache.shared.isEmpty, "the cache should start empty")
    }

    /// Polluter: leaves an entry in the shared cache.
    func testB_storeKeepsValue() {
        Cache.shared.store("v", for: "k")
        XCTAssertEqual(Cache.shared.value(for: "k"), "v")
    }

    /// Cleaner: empties the cache.
    func testC_clearEmptiesCache() {
        Cache.shared.clear()
        XCTAssertTrue(Cache.shared.isEmpty)
    }
}
