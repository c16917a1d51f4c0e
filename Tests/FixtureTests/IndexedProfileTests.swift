@testable import TestscopeProfileData
import XCTest

/// The recorded `.profdata` of each fixture against the toolchain's `llvm-profdata show`.
final class IndexedProfileTests: XCTestCase {
    func testRecordedProfilesMatchLLVMProfdataShow() throws {
        for sample in ["Shapes", "Inventory", "Hostile", "Crashy"] {
            let path = Fixtures.recordedProfile(sample)
            let profile = try IndexedProfileReader.read(path: path)
            let expected = try Toolchain.showCounts(path)
            var actual: [String: [UInt64: [UInt64]]] = [:]
            for record in profile.records {
                XCTAssertEqual(record.nameRef, MD5.nameRef(of: record.name))
                actual[record.name, default: [:]][record.funcHash] = record.counters
            }
            XCTAssertEqual(profile.version, 12, sample)
            XCTAssertFalse(expected.isEmpty, sample)
            XCTAssertEqual(Set(actual.keys), Set(expected.keys), sample)
            XCTAssertEqual(actual, expected, sample)
            XCTAssertEqual(Set(profile.binaryIDs), try Toolchain.showBinaryIDs(path), sample)
            XCTAssertFalse(profile.binaryIDs.isEmpty, sample)
        }
    }

    func testMergingIndexedProfilesSumsAndReportsBadFiles() throws {
        let shapes = Fixtures.recordedProfile("Shapes")
        let single = try IndexedProfileReader.read(path: shapes)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tsp-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let truncated = scratch.appendingPathComponent("cut.profdata").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: shapes))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))

        let result = ProfileCounters.merging(files: [shapes, truncated, "/nonexistent/x.profraw", shapes])
        XCTAssertNil(result.files[0].error)
        XCTAssertNotNil(result.files[1].error)
        XCTAssertFalse(result.files[1].error?.isUnsupported ?? true, "a cut file is corrupt, not unsupported")
        XCTAssertEqual(result.files[2].error.map { if case .io = $0 { return true } else { return false } }, true)
        XCTAssertNil(result.files[3].error)
        for record in single.records {
            let doubled = record.counters.map { $0 * 2 }
            XCTAssertEqual(result.counters.counters(nameRef: record.nameRef, funcHash: record.funcHash), .found(ArraySlice(doubled)))
        }
        XCTAssertEqual(result.counters.binaryIDs, Set(single.binaryIDs))
        XCTAssertTrue(result.mismatches.isEmpty)
    }

    func testBuilderSaturatesAndIgnoresCountMismatches() {
        var builder = ProfileCountersBuilder()
        builder.add(nameRef: 1, funcHash: 0, counters: [UInt64.max - 1, 5], source: "a")
        builder.add(nameRef: 1, funcHash: 0, counters: [3, 5], source: "b")
        builder.add(nameRef: 1, funcHash: 0, counters: [1, 1, 1], source: "c")
        builder.add(nameRef: 1, funcHash: 9, counters: [7], source: "d")
        XCTAssertEqual(builder.counters.counters(nameRef: 1, funcHash: 0), .found([UInt64.max, 10]))
        XCTAssertEqual(builder.counters.counters(nameRef: 1, funcHash: 9), .found([7]), "hashes kept side by side")
        XCTAssertEqual(builder.saturatedAdditions, 1)
        XCTAssertEqual(builder.mismatches, [.init(nameRef: 1, funcHash: 0, expected: 2, found: 3, source: "c")])
        let merged = builder.counters.merging(ProfileCounters(functions: [1: [0: [1, 1]], 2: [0: [4]]], binaryIDs: ["ab"]))
        XCTAssertEqual(merged.counters(nameRef: 1, funcHash: 0), .found([UInt64.max, 11]))
        XCTAssertEqual(merged.counters(nameRef: 2, funcHash: 0), .found([4]))
        XCTAssertEqual(merged.binaryIDs, ["ab"])
    }

    func testIndexedHeaderGates() throws {
        var header = [UInt8](repeating: 0, count: 72)
        func put(_ value: UInt64, at offset: Int) {
            for index in 0..<8 { header[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * index)) }
        }
        put(0x8169_666f_7270_6cff, at: 0)
        put(13, at: 8)
        XCTAssertEqual(unsupported { _ = try IndexedProfileReader.read(bytes: header) }, true, "version 13")
        put(12 | 1 << 56, at: 8)
        XCTAssertEqual(unsupported { _ = try IndexedProfileReader.read(bytes: header) }, true, "IR profile")
        put(12, at: 8)
        XCTAssertEqual(unsupported { _ = try IndexedProfileReader.read(bytes: header) }, false, "no summary: truncated")
        XCTAssertEqual(unsupported { _ = try IndexedProfileReader.read(bytes: []) }, false)
        XCTAssertEqual(unsupported { _ = try IndexedProfileReader.read(bytes: Array("garbage!garbage!".utf8)) }, false)
    }
}

/// nil when no error, else whether the typed error is `.unsupported`; fails on untyped errors.
func unsupported(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> Bool? {
    do {
        try body()
        return nil
    } catch let error as ProfileDataError {
        return error.isUnsupported
    } catch {
        XCTFail("untyped error \(error)", file: file, line: line)
        return nil
    }
}
