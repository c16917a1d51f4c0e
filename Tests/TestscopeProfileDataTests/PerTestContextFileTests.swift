import TestscopeProfileData
import XCTest

/// The per-test contexts file (the generated entry point's per-test recorder writes it; its layout is Testscope's own).
final class PerTestContextFileTests: XCTestCase {
    /// A block as the entry point writes it: "TSC1", u32 id length, id, u32 pair count, (u32, u64) pairs.
    static func block(_ id: String, _ pairs: [(UInt32, UInt64)]) -> [UInt8] {
        var bytes = Array("TSC1".utf8)
        withUnsafeBytes(of: UInt32(id.utf8.count).littleEndian) { bytes += $0 }
        bytes += Array(id.utf8)
        withUnsafeBytes(of: UInt32(pairs.count).littleEndian) { bytes += $0 }
        for (index, delta) in pairs {
            withUnsafeBytes(of: index.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: delta.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    func testBlocksInOrderAndAPartialLastBlockDropped() throws {
        let outside = Self.block("", [(0, 1), (7, 3)])
        let test = Self.block("Mod.Suite/test()/File.swift:4:2\t2", [(9, UInt64.max)])
        let read = try PerTestContextFile.read(bytes: outside + test)
        XCTAssertFalse(read.truncated)
        XCTAssertEqual(read.blocks, [PerTestContextBlock(id: "", indexes: [0, 7], deltas: [1, 3]),
                                     PerTestContextBlock(id: "Mod.Suite/test()/File.swift:4:2\t2", indexes: [9], deltas: [UInt64.max])])
        // A process killed while writing: every cut inside the last block keeps the blocks before it.
        for cut in 1..<test.count {
            let partial = try PerTestContextFile.read(bytes: outside + test.prefix(cut))
            XCTAssertTrue(partial.truncated, "cut \(cut)")
            XCTAssertEqual(partial.blocks.map(\.id), [""], "cut \(cut)")
        }
        XCTAssertEqual(try PerTestContextFile.read(bytes: []).blocks, [])
    }

    func testGarbageIsCorruptNotACrash() {
        XCTAssertThrowsError(try PerTestContextFile.read(bytes: Array("NOPE\0\0\0\0".utf8))) { error in
            guard case ProfileDataError.corrupt = error else { return XCTFail("\(error)") }
        }
        var huge = Array("TSC1".utf8)
        withUnsafeBytes(of: UInt32.max.littleEndian) { huge += $0 }
        XCTAssertThrowsError(try PerTestContextFile.read(bytes: huge))
    }
}
