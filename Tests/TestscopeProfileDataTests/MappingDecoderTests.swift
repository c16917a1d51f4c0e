@testable import TestscopeProfileData
import XCTest

/// The encoded mapping, from the real bytes quoted in the reference (§3.4) and small variations.
final class MappingDecoderTests: XCTestCase {
    /// `Describe.summary(_:)` of Shapes, byte for byte.
    let summaryMapping: [UInt8] = [0x01, 0x01, 0x01, 0x01, 0x05, 0x04,
                                   0x01, 0x14, 0x41, 0x05, 0x06,
                                   0x01, 0x01, 0x0c, 0x00, 0x1a,
                                   0x05, 0x00, 0x1b, 0x02, 0x0a,
                                   0x02, 0x02, 0x0a, 0x01, 0x3f]

    func testWorkedExample() throws {
        let decoded = try MappingDecoder.decode(summaryMapping, filenameCount: 2)
        XCTAssertEqual(decoded.fileIndices, [1])
        XCTAssertEqual(decoded.expressions, [MappingExpression(lhs: .counter(0), rhs: .counter(1))])
        XCTAssertEqual(decoded.regions, [
            MappingRegion(kind: .code, counter: .counter(0), lineStart: 20, columnStart: 65, lineEnd: 25, columnEnd: 6),
            MappingRegion(kind: .code, counter: .counter(0), lineStart: 21, columnStart: 12, lineEnd: 21, columnEnd: 26),
            MappingRegion(kind: .code, counter: .counter(1), lineStart: 21, columnStart: 27, lineEnd: 23, columnEnd: 10),
            MappingRegion(kind: .code, counter: .subtract(0), lineStart: 23, columnStart: 10, lineEnd: 24, columnEnd: 63),
        ])
        XCTAssertFalse(try MappingDecoder.isDummy(summaryMapping))
    }

    func testFilenameIndexIsBounded() {
        XCTAssertThrowsError(try MappingDecoder.decode(summaryMapping, filenameCount: 1))
    }

    func testSkippedGapWholeLineBranchAndDummy() throws {
        // 1 file, 0 expressions, 4 regions: skipped (0x10), gap code #0 (colEnd bit 31),
        // whole-line zero region (0 / 0 columns), branch (0x20) with #0 and zero.
        let gapEnd: [UInt8] = [0x85, 0x80, 0x80, 0x80, 0x08] // 0x8000_0005
        let mapping: [UInt8] = [1, 0, 0, 4,
                                0x10, 3, 1, 1, 2,
                                0x01, 1, 4, 0] + gapEnd + [
                                0x00, 2, 0, 0, 0,
                                0x20, 0x01, 0x00, 0, 7, 0, 9]
        let regions = try MappingDecoder.decode(mapping, filenameCount: 1).regions
        XCTAssertEqual(regions.map(\.kind), [.skipped, .gap, .code, .branch])
        XCTAssertEqual(regions[0].counter, .zero)
        XCTAssertEqual([regions[0].lineStart, regions[0].lineEnd], [3, 4])
        XCTAssertEqual([regions[1].lineStart, regions[1].columnStart, regions[1].columnEnd], [4, 4, 5])
        XCTAssertEqual([regions[2].lineStart, regions[2].columnStart, regions[2].columnEnd], [6, 1, UInt32.max])
        XCTAssertEqual(regions[3].counter, .counter(0))
        XCTAssertEqual(regions[3].falseCounter, .zero)
        XCTAssertEqual([regions[3].lineStart, regions[3].columnStart, regions[3].columnEnd], [6, 7, 9])
        XCTAssertTrue(try MappingDecoder.isDummy([1, 0, 0, 1, 0x00, 1, 1, 0, 1]))
        XCTAssertFalse(try MappingDecoder.isDummy([1, 0, 0, 1, 0x01, 1, 1, 0, 1]))
    }

    func testExpansionTakesTheCounterOfTheExpandedFilesFirstRegion() throws {
        // Files 0, 1, 2: file 0 expands file 1 (0x0c = 1<<3 | 4), file 1 expands file 2, file 2 has #3.
        // One expression used as add (tag 3) by the last region: its kind becomes add everywhere.
        let mapping: [UInt8] = [3, 0, 0, 0,
                                1, 0x01, 0x05,
                                2, 0x0c, 1, 1, 0, 5, 0x03, 1, 1, 0, 9,
                                1, 0x14, 2, 1, 0, 3,
                                1, 0x0d, 4, 1, 0, 8]
        let decoded = try MappingDecoder.decode(mapping, filenameCount: 1)
        XCTAssertEqual(decoded.regions.map(\.kind), [.expansion, .code, .expansion, .code])
        XCTAssertEqual(decoded.regions[0].expandedFileID, 1)
        XCTAssertEqual(decoded.regions[0].counter, .counter(3), "nested: file 1's first region is the expansion of file 2")
        XCTAssertEqual(decoded.regions[2].counter, .counter(3))
        XCTAssertEqual(decoded.regions[1].counter, .add(0))
        XCTAssertEqual(decoded.regions.map(\.fileID), [0, 0, 1, 2])
    }

    func testMalformedMappingsThrowTypedErrors() {
        let cases: [[UInt8]] = [
            [], [1], [1, 0], [1, 0, 1, 0x0a], // expression LHS refers to expression 2 of 1
            [1, 0, 0, 1, 0x01, 5, 9, 0, 3], // region ends before it starts
            [1, 0, 0, 1, 0x38, 1, 1, 0, 1], // region kind 7
            [1, 0, 0, 1, 0x0c, 1, 1, 0, 1], // expands file 1 of 1
            [1, 0, 0, 200], // more regions than bytes
        ]
        for bytes in cases {
            XCTAssertThrowsError(try MappingDecoder.decode(bytes, filenameCount: 1)) { error in
                XCTAssertTrue(error is ProfileDataError, "\(bytes): \(error)")
            }
        }
        XCTAssertThrowsError(try MappingDecoder.decode([1, 0, 0, 1, 0x28, 1, 1, 1, 0, 1], filenameCount: 1)) { error in
            XCTAssertEqual((error as? ProfileDataError)?.isUnsupported, true, "MC/DC decision → fallback")
        }
    }

    func testFilenamesJoinRelativeNamesToTheCompilationDirectory() throws {
        // Raw (uncompressed) list: ["/work/pkg", "Sources/./A/../B.swift", "/abs/C.swift"].
        let names = ["/work/pkg", "Sources/./A/../B.swift", "/abs/./C.swift"]
        var list: [UInt8] = []
        for name in names { list += [UInt8(name.utf8.count)] + Array(name.utf8) }
        let encoded: [UInt8] = [3, UInt8(list.count), 0] + list
        XCTAssertEqual(try CoverageMappingReader.decodeFilenames(encoded, version: 5),
                       ["/work/pkg", "/work/pkg/Sources/B.swift", "/abs/./C.swift"])
        XCTAssertEqual(try CoverageMappingReader.decodeFilenames(encoded, version: 4), names)
        XCTAssertThrowsError(try CoverageMappingReader.decodeFilenames([0, 0, 0], version: 5))
        XCTAssertEqual(String(decoding: PathJoin.joinAndRemoveDots(Array("rel".utf8), Array("../../x".utf8)), as: UTF8.self), "../x")
    }

    /// File ids are kept in 16 bits: a mapping over more files is left to llvm-cov, not misread.
    func testMappingOverMoreThan65536FilesIsUnsupported() {
        let count = 65_537
        var mapping: [UInt8] = [0x81, 0x80, 0x04]  // ULEB128 65,537 file ids
        mapping += [UInt8](repeating: 0, count: count)  // each file id → filename 0
        XCTAssertThrowsError(try MappingDecoder.decode(mapping, filenameCount: 1)) { error in
            XCTAssertEqual((error as? ProfileDataError)?.isUnsupported, true, "\(error)")
        }
    }

    func testCovmapVersionGate() {
        // A header with version 7 (a future mapping format) is unsupported, not corrupt.
        let header: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0]
        XCTAssertThrowsError(try CoverageMappingReader.read(covmap: header, covfun: [], names: [])) { error in
            XCTAssertEqual((error as? ProfileDataError)?.isUnsupported, true, "\(error)")
        }
    }
}
