import Foundation
import XCTest
import TestscopeExecution
import TestscopeProfileData
import TestscopeTestSupport
@testable import TestscopeCoverage

/// Records kept encoded and evaluated a batch of files at a time (`EncodedRecordStream`) against the
/// same records all evaluated first (`NativeFunctionRecords.build`), on synthetic sections of two
/// binaries: a record over two files, a duplicate from the second binary, a record dropped by its
/// evaluation, a hash mismatch, and a record of an excluded file.
final class EncodedRecordStreamTests: XCTestCase {
    func le(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    /// One covfun record (llvm's layout: NameRef, DataSize, FuncHash, FilenamesRef, mapping, padding to 8).
    func record(_ name: String, hash: UInt64 = 0, filenamesRef: UInt64, mapping: [UInt8]) -> [UInt8] {
        var bytes = le(MD5.nameRef(of: name), 8) + le(UInt64(mapping.count), 4) + le(hash, 8) + le(filenamesRef, 8) + mapping
        while bytes.count % 8 != 0 { bytes.append(0) }
        return bytes
    }

    /// A mapping with one code region per file: file ids → filename indices, no expressions, then per
    /// file one region `counter` at line `line`, columns 1–5.
    func mapping(files: [UInt8], counter: UInt8 = 0x01, line: UInt8 = 1) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(files.count)] + files + [0]
        for (k, _) in files.enumerated() { bytes += [1, counter, line + UInt8(3 * k), 1, 0, 5] }
        return bytes
    }

    /// The sections `binaries` made last: covmap, each binary's covfun, names.
    var sections: (covmap: [UInt8], covfun: [[UInt8]], names: [UInt8]) = ([], [], [])

    /// `corrupt`: the second binary's `k` says it has 5 regions and holds 1 (its file ids still read).
    func binaries(corrupt: Bool = false) throws -> (records: [CoverageMappingRecords], counters: ProfileCounters) {
        var list: [UInt8] = []
        for name in ["/p", "A.swift", "B.swift", "C.swift", "Tests/T.swift"] { list += [UInt8(name.utf8.count)] + Array(name.utf8) }
        let filenames: [UInt8] = [5, UInt8(list.count), 0] + list
        var covmap = le(0, 4) + le(UInt64(filenames.count), 4) + le(0, 4) + le(6 - 1, 4) + filenames
        while covmap.count % 8 != 0 { covmap.append(0) }
        let ref = MD5.low64(filenames)
        let first = record("f", filenamesRef: ref, mapping: mapping(files: [1]))
            + record("g", filenamesRef: ref, mapping: mapping(files: [1, 3], line: 20))
            + record("h", filenamesRef: ref, mapping: mapping(files: [2], counter: 0x05))  // counter #1: the profile has one
            + record("m", filenamesRef: ref, mapping: mapping(files: [2]))  // another hash in the profile
            + record("t", filenamesRef: ref, mapping: mapping(files: [4], counter: 0x05))  // excluded, dropped too
        let second = record("f", filenamesRef: ref, mapping: mapping(files: [1]))  // a duplicate of the first binary's
            + record("k", filenamesRef: ref, mapping: corrupt ? [1, 3, 0, 5, 0x01, 9, 1, 0, 5] : mapping(files: [3], line: 9))
        let namesList = Array("f\u{1}g\u{1}h\u{1}m\u{1}t\u{1}k".utf8)
        let names: [UInt8] = [UInt8(namesList.count), 0] + namesList
        let records = try [first, second].enumerated().map { index, covfun in
            try CoverageMappingReader.records(covmap: covmap, covfun: covfun, names: names, binaryIndex: index)
        }
        sections = (covmap, [first, second], names)
        let counters = ProfileCounters(functions: [
            MD5.nameRef(of: "f"): [0: [3]], MD5.nameRef(of: "g"): [0: [1]], MD5.nameRef(of: "h"): [0: [5]],
            MD5.nameRef(of: "m"): [9: [1]], MD5.nameRef(of: "t"): [0: [1]], MD5.nameRef(of: "k"): [0: [0]],
        ])
        return (records, counters)
    }

    func testBatchesOfFilesGiveWhatEvaluatingEveryRecordFirstGives() throws {
        let (records, counters) = try binaries()
        let eager = try NativeFunctionRecords.build(records, counters: counters)
        let encoded = try EncodedFunctionRecords.read(records, counters: counters)
        XCTAssertEqual(encoded.diagnostics.hashMismatches, ["m"])
        XCTAssertEqual(encoded.diagnostics.profiled, 6, "every named record but the mismatch has counters")
        XCTAssertEqual(encoded.namedCount, 7)
        XCTAssertEqual(encoded.loadableCount, 6, "the hash mismatch is not evaluated")

        let root = URL(fileURLWithPath: "/p")
        var options = CoverageBuildOptions(packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
                                           createdAt: Date(timeIntervalSince1970: 0))
        options.needsFunctionNames = false
        let builder = CoverageBuilder(options: options)
        let expected = try builder.build(sources: [NativeRecordSource(name: "p", functions: eager.functions)])
        let streamed = try builder.build(sources: [NativeRecordSource(name: "p", encoded: encoded, binaries: ["b0", "b1"])])
        XCTAssertEqual(streamed.files.map(\.path), ["/p/A.swift", "/p/C.swift"], "B.swift has no kept record; T.swift is a test file")
        XCTAssertEqual(streamed.files, expected.files)
        XCTAssertEqual(streamed.files.first?.functions.map(\.name), ["f", "g"])
        XCTAssertEqual(streamed.files.first?.functions.first?.count, 3, "the second binary's f is a duplicate, not added")
        XCTAssertTrue(streamed.warnings.contains { $0.message.contains("2 function(s) left out") }, "\(streamed.warnings)")

        // Read the export-shaped way (every record evaluated first): the same files and functions.
        var readFiles: [ExportFile] = [], readFunctions: [ExportFunction] = []
        try NativeRecordSource(name: "p", encoded: try EncodedFunctionRecords.read(records, counters: counters), binaries: ["b0", "b1"])
            .read(includeFile: { _ in true }, onFile: { readFiles.append($0) }, onFunction: { readFunctions.append($0) })
        let oracleFiles = NativeFileCoverage.files(eager.functions)
        XCTAssertEqual(readFiles.map(\.filename), oracleFiles.map(\.filename))
        XCTAssertEqual(readFiles.map { $0.segments ?? [] }, oracleFiles.map { $0.segments ?? [] })
        XCTAssertEqual(readFunctions.map(\.name), eager.exportFunctions.map(\.name))
        XCTAssertEqual(readFunctions.map(\.regions), eager.exportFunctions.map(\.regions))

        // Batches of one and two files: g (A and C) is evaluated once, with A, and still read with C.
        for batchSize in [1, 2, 32] {
            var files: [String: (segments: [ExportSegment], records: [String])] = [:]
            let dropped = try EncodedRecordStream(encoded: encoded, batchSize: batchSize).files(
                includeFile: { !$0.contains("/Tests/") }, withRecords: true,
                perFile: { file, records in (file.filename, file.segments ?? [], records.records.map(\.mangledName)) },
                onBatch: { for file in $0 { files[file.0] = (file.1, file.2) } })
            XCTAssertEqual(Set(dropped.evaluationErrors), Set(eager.diagnostics.evaluationErrors), "batch \(batchSize)")
            XCTAssertEqual(dropped.evaluationErrors.count, 2, "each dropped record counted once (batch \(batchSize))")
            XCTAssertEqual(dropped.duplicates, eager.diagnostics.duplicates, "batch \(batchSize)")
            let oracle = Dictionary(uniqueKeysWithValues: NativeFileCoverage.files(eager.functions).map { ($0.filename, $0.segments ?? []) })
            XCTAssertEqual(files.mapValues(\.segments), oracle.filter { !$0.key.contains("/Tests/") }, "batch \(batchSize)")
            XCTAssertEqual(files["/p/C.swift"]?.records, ["k"], "batch \(batchSize)")
        }
    }

    func testARecordThatCannotBeDecodedNamesItsBinary() throws {
        let (records, counters) = try binaries(corrupt: true)
        let encoded = try EncodedFunctionRecords.read(records, counters: counters)
        let source = NativeRecordSource(name: "p", encoded: encoded, binaries: ["/bin/first", "/bin/second"])
        XCTAssertThrowsError(try source.readByFile(includeFile: { _ in true }, perFile: { file, _ in file.filename }, onBatch: { _ in })) { error in
            guard case CoverageError.unreadable(let path, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/bin/second")
        }
    }

    /// Seeded mutations of the first binary's covfun (the file-id maps read in place, the records
    /// decoded a batch at a time): every outcome is a model or a typed error, never a trap.
    func testMutatedRecordsAreAReportOrOneTypedError() throws {
        let (_, counters) = try binaries()
        let (covmap, covfun, names) = sections
        let root = URL(fileURLWithPath: "/p")
        var options = CoverageBuildOptions(packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
                                           createdAt: Date(timeIntervalSince1970: 0))
        options.needsFunctionNames = false
        let builder = CoverageBuilder(options: options)
        var models = 0
        let run = Mutator.run([("covfun", covfun[0])], iterations: Mutator.iterations(default: 2_000)) { _, mutated in
            do {
                let records = try CoverageMappingReader.records(covmap: covmap, covfun: mutated, names: names)
                let encoded = try EncodedFunctionRecords.read([records], counters: counters)
                _ = try builder.build(sources: [NativeRecordSource(name: "p", encoded: encoded, binaries: ["/bin/b"])])
                models += 1
                return true
            } catch is ProfileDataError, is CoverageError, is NativeFunctionRecords.DecodingFailure {
                return true
            } catch {
                return false
            }
        }
        XCTAssertEqual(run.inputs, Mutator.iterations(default: 2_000))
        XCTAssertGreaterThan(models, 0, "some mutations still make a report")
    }
}
