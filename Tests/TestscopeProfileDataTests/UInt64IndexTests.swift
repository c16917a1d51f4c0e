@testable import TestscopeProfileData
import XCTest

/// `UInt64Index` (NameRef tables) against `Dictionary` as the oracle, and `ByteReader.u64s`.
final class UInt64IndexTests: XCTestCase {
    func testAgreesWithADictionaryThroughGrowthAndReplacement() {
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 15, 16, 17, 1_000, 70_000] {
            var index = UInt64Index(minimumCapacity: size / 3)
            var oracle: [UInt64: Int32] = [:]
            // Random keys, plus keys that differ only in their high or low bits, plus 0 and max.
            var keys = (0..<size).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
            keys += (0..<min(size, 64)).map { UInt64(1) << UInt64($0) } + [0, .max]
            for (i, key) in keys.enumerated() {
                index[key] = Int32(i)
                oracle[key] = Int32(i)
            }
            // Every third key replaced: the last assignment wins, the count does not change.
            for (i, key) in keys.enumerated() where i % 3 == 0 {
                index[key] = Int32(i + 1)
                oracle[key] = Int32(i + 1)
            }
            XCTAssertEqual(index.count, oracle.count, "size \(size)")
            for (key, value) in oracle { XCTAssertEqual(index[key], value) }
            for _ in 0..<1_000 {
                let absent = UInt64.random(in: .min ... .max, using: &generator)
                XCTAssertEqual(index[absent], oracle[absent])
            }
            var seen: [UInt64: Int32] = [:]
            index.forEach { key, value in
                XCTAssertNil(seen[key], "each key once")
                seen[key] = value
            }
            XCTAssertEqual(seen, oracle)
        }
    }

    func testBulkCountersAreBoundsCheckedAndLittleEndian() throws {
        var reader = ByteReader([1, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x01, 0, 0, 0, 0, 0, 0x80, 9])
        XCTAssertEqual(try reader.u64s(2), [1, 0x8000_0000_0000_0102])
        XCTAssertEqual(reader.offset, 16)
        XCTAssertThrowsError(try reader.u64s(1)) { error in
            guard case ProfileDataError.truncated = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(reader.offset, 16, "a failed read does not move the cursor")
        XCTAssertThrowsError(try reader.u64s(-1))
        XCTAssertThrowsError(try reader.u64s(Int.max))
        XCTAssertEqual(try reader.u64s(0), [])
    }
}
