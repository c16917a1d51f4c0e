import Foundation
@testable import TestscopeProfileData
import XCTest

/// Raw profiles and the ELF mapping of a real coverage build of Shapes, against the toolchain's
/// `llvm-profdata merge -sparse` + `show` and `llvm-cov export`.
final class RealBuildTests: XCTestCase {
    func testRawCountersSumToLLVMProfdataMerge() throws {
        let build = try ShapesBuild.get()
        var builder = ProfileCountersBuilder()
        var names: [UInt64: String] = [:]
        var binaryIDs = Set<String>()
        for path in build.profraws {
            let start = Date()
            let profiles = try RawProfileReader.read(path: path)
            print("read \(path) in \(String(format: "%.2f", Date().timeIntervalSince(start) * 1000)) ms")
            XCTAssertEqual(profiles.count, 1)
            for profile in profiles {
                XCTAssertEqual(profile.records.count, try profile.names().count)
                builder.add(profile, source: path)
                for name in try profile.names() { names[MD5.nameRef(of: name)] = name }
                binaryIDs.formUnion(profile.binaryIDs)
            }
        }
        XCTAssertTrue(builder.mismatches.isEmpty)
        let expected = try Toolchain.showCounts(build.merged)
        XCTAssertFalse(expected.isEmpty)
        var seen = Set<String>()
        for (nameRef, byHash) in builder.counters.functions {
            let name = try XCTUnwrap(names[nameRef], "every record's name is in the names section")
            for (hash, counters) in byHash {
                if let oracle = expected[name]?[hash] {
                    XCTAssertEqual(counters, oracle, name)
                    seen.insert(name)
                } else {
                    XCTAssertTrue(counters.allSatisfy { $0 == 0 }, "\(name) absent from the sparse merge must be all zero")
                }
            }
        }
        XCTAssertEqual(seen, Set(expected.keys), "every merged function comes from the raw files")
        XCTAssertEqual(binaryIDs, try Toolchain.showBinaryIDs(build.merged))

        // The same through the file-level merge, which also reads the merged .profdata.
        let viaFiles = ProfileCounters.merging(files: build.profraws)
        XCTAssertTrue(viaFiles.files.allSatisfy { $0.error == nil })
        XCTAssertEqual(viaFiles.counters.functions, builder.counters.functions)
    }

    func testProfilesBackToBackInOneFile() throws {
        let build = try ShapesBuild.get()
        let first = try Data(contentsOf: URL(fileURLWithPath: build.profraws[0]))
        let second = try Data(contentsOf: URL(fileURLWithPath: build.profraws[1]))
        XCTAssertEqual(first.count % 8, 0)
        let joined = [UInt8](first) + [0, 0, 0, 0, 0, 0, 0, 0] + [UInt8](second)
        let profiles = try RawProfileReader.read(bytes: joined)
        XCTAssertEqual(profiles.count, 2)
        XCTAssertEqual(profiles[0].records, try RawProfileReader.read(bytes: [UInt8](first))[0].records)
        XCTAssertEqual(profiles[1].records, try RawProfileReader.read(bytes: [UInt8](second))[0].records)
        // Misaligned second profile: corrupt, not a crash.
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: [UInt8](first) + [1] + [UInt8](second)) }, false)
    }

    func testRawHeaderGatesAndTruncation() throws {
        let build = try ShapesBuild.get()
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: build.profraws[0])))
        func patched(_ offset: Int, _ value: UInt64) -> [UInt8] {
            var bytes = original
            for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * index)) }
            return bytes
        }
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(8, 9)) }, true, "version 9")
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(8, 11)) }, true, "version 11")
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(8, 10 | 1 << 60)) }, true, "byte coverage")
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(8, 10 | 1 << 56)) }, true, "IR")
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(0, RawProfileReader.magic32)) }, true)
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(0, RawProfileReader.magic64.byteSwapped)) }, true)
        // Correlation mode: no data records and no names, but counters.
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(0x48, 0)) }, false, "names size 0 alone: corrupt")
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: patched(0x18, 0)) }, false)
        var correlated = patched(0x18, 0)
        for index in 0..<8 { correlated[0x48 + index] = 0 }
        XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: correlated) }, true, "correlation")
        // Every prefix: a typed error (or, at exactly the end, the profile).
        for length in stride(from: 0, to: original.count, by: 7) {
            XCTAssertEqual(unsupported { _ = try RawProfileReader.read(bytes: Array(original.prefix(length))) }, false, "\(length)")
        }
    }

    func testMappingMatchesLLVMCovExport() throws {
        let build = try ShapesBuild.get()
        let start = Date()
        let mapping = try CoverageMappingReader.read(binaryAt: build.binary)
        print("read the mapping of \(build.binary) in \(String(format: "%.2f", Date().timeIntervalSince(start) * 1000)) ms")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: build.export)))
        let data = try XCTUnwrap(((json as? [String: Any])?["data"] as? [[String: Any]])?.first)
        let exported = try XCTUnwrap(data["functions"] as? [[String: Any]])
        XCTAssertEqual(mapping.functions.count, exported.count)
        XCTAssertEqual(mapping.duplicateRecords, 0)
        for (function, oracle) in zip(mapping.functions, exported) {
            let name = try XCTUnwrap(function.pgoName)
            // Export's display name: the PGO name without "<first file>:".
            let first = function.filenames.first ?? ""
            let display = name.hasPrefix(first) && !first.isEmpty ? String(name.dropFirst(first.count + 1)) : name
            XCTAssertEqual(display, oracle["name"] as? String)
            XCTAssertEqual(function.nameRef, MD5.nameRef(of: name))
            XCTAssertEqual(function.filenames, oracle["filenames"] as? [String], name)
            let regions = function.regions.filter { $0.kind != .branch && $0.kind != .mcdcBranch && $0.kind != .mcdcDecision }
            let expected = try XCTUnwrap(oracle["regions"] as? [[NSNumber]])
            XCTAssertEqual(regions.count, expected.count, name)
            for (region, row) in zip(regions, expected) {
                let mine = [region.lineStart, region.columnStart, region.lineEnd, region.columnEnd].map(UInt64.init)
                    + [UInt64(region.fileID), UInt64(region.expandedFileID), UInt64(region.kind.rawValue)]
                let theirs = [0, 1, 2, 3, 5, 6, 7].map { row[$0].uint64Value }
                XCTAssertEqual(mine, theirs, name)
            }
        }
    }

    func testBuildIDIsTheProfilesBinaryID() throws {
        let build = try ShapesBuild.get()
        let mapping = try CoverageMappingReader.read(binaryAt: build.binary)
        let buildID = try XCTUnwrap(mapping.buildID)
        XCTAssertEqual(buildID.count, 40)
        for path in build.profraws {
            XCTAssertEqual(try RawProfileReader.read(path: path).first?.binaryIDs, [buildID])
        }
        XCTAssertEqual(try IndexedProfileReader.read(path: build.merged).binaryIDs, [buildID])
    }

    func testELFErrors() throws {
        let build = try ShapesBuild.get()
        // A real ELF without coverage sections: the toolchain's own llvm-profdata.
        XCTAssertThrowsError(try CoverageMappingReader.read(binaryAt: try Toolchain.tool("llvm-profdata"))) { error in
            guard case ProfileDataError.noCoverageMapping = error else { return XCTFail("\(error)") }
        }
        let scratch = "\(build.root)/scratch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let machO = "\(scratch)/macho"
        try Data([0xcf, 0xfa, 0xed, 0xfe] + [UInt8](repeating: 0, count: 60)).write(to: URL(fileURLWithPath: machO))
        XCTAssertEqual(unsupported { _ = try CoverageMappingReader.read(binaryAt: machO) }, true)
        let empty = "\(scratch)/empty"
        try Data().write(to: URL(fileURLWithPath: empty))
        XCTAssertEqual(unsupported { _ = try CoverageMappingReader.read(binaryAt: empty) }, true)
        XCTAssertThrowsError(try CoverageMappingReader.read(binaryAt: "\(scratch)/missing"))
        // A covfun section whose size points past the file (or past any Int): truncated, never a trap.
        let elf = try ELFFile(path: build.binary)
        let covfun = try XCTUnwrap(elf.sections.firstIndex { $0.name == "__llvm_covfun" })
        var header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: build.binary)))
        let tableOffset = (0..<8).reduce(0) { $0 | Int(header[0x28 + $1]) << (8 * $1) }
        for size in [UInt64(header.count), UInt64.max - 7] {
            for k in 0..<8 { header[tableOffset + covfun * 64 + 32 + k] = UInt8(truncatingIfNeeded: size >> UInt64(8 * k)) }
            let patched = "\(scratch)/covfun-size"
            try Data(header).write(to: URL(fileURLWithPath: patched))
            XCTAssertEqual(unsupported { _ = try CoverageMappingReader.read(binaryAt: patched) }, false, "size \(size)")
        }
        // The binary cut in the middle of its section table, or of its header: truncated.
        let whole = try Data(contentsOf: URL(fileURLWithPath: build.binary))
        for length in [40, whole.count - 100] {
            let cut = "\(scratch)/cut"
            try whole.prefix(length).write(to: URL(fileURLWithPath: cut))
            XCTAssertEqual(unsupported { _ = try CoverageMappingReader.read(binaryAt: cut) }, false, "\(length)")
        }
    }
}
