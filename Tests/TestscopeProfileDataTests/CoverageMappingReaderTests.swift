@testable import TestscopeProfileData
import XCTest

/// Synthetic covmap/covfun sections: llvm's per-binary NameRef dedup and its dummy records.
final class CoverageMappingReaderTests: XCTestCase {
    func le(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    func record(_ nameRef: UInt64, hash: UInt64, filenamesRef: UInt64, mapping: [UInt8]) -> [UInt8] {
        var bytes = le(nameRef, 8) + le(UInt64(mapping.count), 4) + le(hash, 8) + le(filenamesRef, 8) + mapping
        while bytes.count % 8 != 0 { bytes.append(0) }
        return bytes
    }

    func testDedupKeepsTheFirstRecordUnlessItIsADummy() throws {
        var list: [UInt8] = []
        for name in ["/dir", "a.c"] { list += [UInt8(name.utf8.count)] + Array(name.utf8) }
        let filenames: [UInt8] = [2, UInt8(list.count), 0] + list
        var covmap = le(0, 4) + le(UInt64(filenames.count), 4) + le(0, 4) + le(6 - 1, 4) + filenames
        while covmap.count % 8 != 0 { covmap.append(0) }
        let ref = MD5.low64(filenames)
        let a = MD5.nameRef(of: "a"), b = MD5.nameRef(of: "b")
        let dummy: [UInt8] = [1, 1, 0, 1, 0x00, 1, 1, 0, 1]
        let real: [UInt8] = [1, 1, 0, 1, 0x01, 2, 1, 0, 5]
        let other: [UInt8] = [1, 1, 0, 1, 0x05, 3, 1, 0, 5]
        let covfun = record(a, hash: 0, filenamesRef: ref, mapping: dummy)
            + record(b, hash: 7, filenamesRef: ref, mapping: other)
            + record(a, hash: 0, filenamesRef: ref, mapping: real)
            + record(a, hash: 0, filenamesRef: ref, mapping: other)
            + record(b, hash: 0, filenamesRef: ref, mapping: real)
        let names: [UInt8] = [3, 0, 0x61, 0x01, 0x62]
        let mapping = try CoverageMappingReader.read(covmap: covmap, covfun: covfun, names: names, buildID: "ab")
        XCTAssertEqual(mapping.functions.map(\.pgoName), ["a", "b"], "the replacement keeps the dummy's position")
        XCTAssertEqual(mapping.functions[0].regions.first?.lineStart, 2, "the real record replaced the dummy")
        XCTAssertEqual(mapping.functions[1].funcHash, 7, "first real record wins")
        XCTAssertEqual(mapping.functions[0].filenames, ["/dir/a.c"])
        XCTAssertEqual(mapping.duplicateRecords, 3)
        XCTAssertEqual(mapping.buildID, "ab")

        // A function whose filenames ref is unknown: corrupt.
        XCTAssertThrowsError(try CoverageMappingReader.read(covmap: covmap, covfun: record(a, hash: 0, filenamesRef: ref &+ 1, mapping: real), names: names)) { error in
            guard case ProfileDataError.corrupt = error else { return XCTFail("\(error)") }
        }
        // An empty covmap means no mapping.
        XCTAssertThrowsError(try CoverageMappingReader.read(covmap: [], covfun: [], names: [])) { error in
            guard case ProfileDataError.noCoverageMapping = error else { return XCTFail("\(error)") }
        }
    }
}
