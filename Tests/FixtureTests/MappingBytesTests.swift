@testable import TestscopeProfileData
import XCTest

/// `__llvm_covfun` read in pieces from a real coverage build of Shapes: the same bytes and records as
/// the section read whole, and a piece let go with its last record.
final class MappingBytesTests: XCTestCase {
    /// Shapes' covfun is far below the 256 KiB of a real piece: pieces of 64 bytes cut it at (nearly) every record.
    func testPiecesHoldTheSectionAndDecodeAsItDoes() throws {
        let build = try ShapesBuild.get()
        let elf = try ELFFile(path: build.binary)
        let sections = elf.sections.filter { $0.name == "__llvm_covfun" }
        let whole = try elf.bytes(of: sections, aligningEachTo: 8)
        let pieces = try MappingBytes.read(sections, of: elf, pieceSize: 64)
        XCTAssertGreaterThan(pieces.all.count, 10)
        var next = 0
        for (bytes, origin) in pieces.all {
            XCTAssertEqual(origin, next, "pieces follow each other")
            XCTAssertEqual(bytes, Array(whole[origin..<origin + bytes.count]))
            next = origin + bytes.count
        }
        XCTAssertEqual(next, whole.count)

        let covmap = try elf.bytes(of: try XCTUnwrap(elf.section(named: "__llvm_covmap")))
        let names = try elf.bytes(of: try XCTUnwrap(elf.section(named: "__llvm_prf_names")))
        let inPieces = try CoverageMappingReader.records(covmap: covmap, covfun: pieces, names: names)
        let inOne = try CoverageMappingReader.records(covmap: covmap, covfun: whole, names: names)
        func described(_ f: MappedFunction) -> String { "\(f.nameRef) \(f.pgoName ?? "-") \(f.funcHash) \(f.filenames) \(f.expressions) \(f.regions)" }
        XCTAssertEqual(inPieces.count, inOne.count)
        XCTAssertEqual(try inPieces.decodedAll().functions.map(described), try inOne.decodedAll().functions.map(described))
        // The reader of a whole binary cuts at 256 KiB: Shapes is one piece, read as the section.
        XCTAssertEqual(try MappingBytes.read(sections, of: elf).all.map(\.bytes), [whole])
    }

    func testAPieceIsLetGoWithItsLastRecord() throws {
        let build = try ShapesBuild.get()
        let elf = try ELFFile(path: build.binary)
        let sections = elf.sections.filter { $0.name == "__llvm_covfun" }
        let covmap = try elf.bytes(of: try XCTUnwrap(elf.section(named: "__llvm_covmap")))
        let names = try elf.bytes(of: try XCTUnwrap(elf.section(named: "__llvm_prf_names")))
        let records = try CoverageMappingReader.records(covmap: covmap, covfun: try MappingBytes.read(sections, of: elf, pieceSize: 512),
                                                        names: names)
        XCTAssertGreaterThan(records.covfun.all.count, 2)
        // The records of the first piece: once each is let go, they no longer decode (a typed error,
        // never other bytes); every other record still does.
        let secondOrigin = records.covfun.all[1].origin
        let first = (0..<records.count).filter { Int(records.records[$0].mappingStart) < secondOrigin }
        XCTAssertFalse(first.isEmpty)
        for i in first.dropLast() { records.letGo(record: i) }
        XCTAssertNoThrow(try records.function(at: first.last!), "the piece stays while one of its records is left")
        records.letGo(record: first.last!)
        XCTAssertTrue(records.covfun.all[0].bytes.isEmpty)
        for i in first { XCTAssertEqual(unsupported { _ = try records.function(at: i) }, false, "record \(i)") }
        for i in (0..<records.count) where !first.contains(i) { XCTAssertNoThrow(try records.function(at: i)) }
    }
}
