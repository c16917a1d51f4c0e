import TestscopeProfileData
import XCTest

/// The three outcomes of a counter lookup, as llvm-cov sees them.
final class ProfileCountersTests: XCTestCase {
    func testLookupFindsMismatchesAndUnknowns() {
        let counters = ProfileCounters(functions: [7: [0: [1, 2]]])
        XCTAssertEqual(counters.counters(nameRef: 7, funcHash: 0), .found([1, 2]))
        XCTAssertEqual(counters.counters(nameRef: 7, funcHash: 1), .hashMismatch)
        XCTAssertEqual(counters.counters(nameRef: 8, funcHash: 0), .unknown)
        // The same three, found once and looked at again from the kept entry.
        let found = counters.entry(nameRef: 7, funcHash: 0)
        XCTAssertGreaterThanOrEqual(found, 0)
        XCTAssertEqual(counters.lookup(entry: found), .found([1, 2]))
        XCTAssertEqual(counters.entry(nameRef: 7, funcHash: 1), ProfileCounters.mismatchedEntry)
        XCTAssertEqual(counters.lookup(entry: ProfileCounters.mismatchedEntry), .hashMismatch)
        XCTAssertEqual(counters.entry(nameRef: 8, funcHash: 0), ProfileCounters.unknownEntry)
        XCTAssertEqual(counters.lookup(entry: ProfileCounters.unknownEntry), .unknown)
    }

    /// The flat store: several hashes of one name chained, sums in place, order of first addition kept.
    func testAdditionsSumChainAndKeepTheirOrder() {
        var counters = ProfileCounters()
        XCTAssertTrue(counters.isEmpty)
        XCTAssertEqual(counters.add(nameRef: 5, funcHash: 1, counters: [1, 2]), .inserted)
        XCTAssertEqual(counters.add(nameRef: 3, funcHash: 0, counters: [UInt64.max]), .inserted)
        XCTAssertEqual(counters.add(nameRef: 5, funcHash: 2, counters: [9]), .inserted)
        XCTAssertEqual(counters.add(nameRef: 5, funcHash: 1, counters: [10, 20]), .summed(saturated: 0))
        XCTAssertEqual(counters.add(nameRef: 3, funcHash: 0, counters: [1]), .summed(saturated: 1))
        XCTAssertEqual(counters.add(nameRef: 5, funcHash: 2, counters: [1, 1]), .countMismatch(expected: 1))
        XCTAssertEqual(counters.counters(nameRef: 5, funcHash: 1), .found([11, 22]))
        XCTAssertEqual(counters.counters(nameRef: 5, funcHash: 2), .found([9]))
        XCTAssertEqual(counters.counters(nameRef: 3, funcHash: 0), .found([UInt64.max]))
        XCTAssertEqual(counters.functions, [5: [1: [11, 22], 2: [9]], 3: [0: [UInt64.max]]])
        var order: [String] = []
        counters.forEach { nameRef, hash, counts in order.append("\(nameRef)/\(hash)=\(Array(counts))") }
        XCTAssertEqual(order, ["5/1=[11, 22]", "3/0=[\(UInt64.max)]", "5/2=[9]"])
    }

    /// One builder added to another gives what adding its records one by one gives.
    func testBuilderAddsAnotherBuilderRecordByRecord() {
        var first = ProfileCountersBuilder()
        first.add(nameRef: 1, funcHash: 0, counters: [1, 2], source: "a")
        var second = ProfileCountersBuilder()
        second.add(nameRef: 1, funcHash: 0, counters: [3], source: "b")  // one counter where the first has two
        second.add(nameRef: 2, funcHash: 0, counters: [4], source: "b")
        first.add(second, source: "b")
        XCTAssertEqual(first.counters.functions, [1: [0: [1, 2]], 2: [0: [4]]])
        XCTAssertEqual(first.mismatches.map(\.found), [1])
        var third = ProfileCountersBuilder()
        third.add(nameRef: 1, funcHash: 0, counters: [5, 5, 5], source: "c")
        first.add(third, source: "c")
        XCTAssertEqual(first.mismatches.map(\.source), ["b", "c"])
        XCTAssertEqual(first.counters.counters(nameRef: 1, funcHash: 0), .found([1, 2]))
    }
}
