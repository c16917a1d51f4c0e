import Foundation
import XCTest
import TestscopeExecution
import TestscopeProfileData
@testable import TestscopeCoverage

/// `loadFunctionRecord` on the reference's worked example (`Describe.summary(_:)`, decoded from the
/// Shapes binary's real mapping bytes) and on its edge cases.
final class NativeRecordTests: XCTestCase {
    static let name = "$s6Shapes8DescribeO7summaryySSSayAA5Shape_pGFZ"
    static let nameRef: UInt64 = 0x5EED
    static let describe = "/work/main/sample-profiles/packages/Shapes/Sources/Shapes/Describe.swift"

    /// `01 01 01 01 05 04 | 01 14 41 05 06 | 01 01 0c 00 1a | 05 00 1b 02 0a | 02 02 0a 01 3f`:
    /// one expression (#0 − #1), regions #0 20:65–25:6, #0 21:12–21:26, #1 21:27–23:10, (#0 − #1) 23:10–24:63.
    static func summaryMapping(pgoName: String = name, filenames: [String] = [describe], binary: Int = 0) -> MappedFunction {
        MappedFunction(
            nameRef: nameRef, pgoName: pgoName, funcHash: 0, filenames: filenames,
            expressions: [MappingExpression(lhs: .counter(0), rhs: .counter(1))],
            regions: [
                MappingRegion(kind: .code, counter: .counter(0), lineStart: 20, columnStart: 65, lineEnd: 25, columnEnd: 6),
                MappingRegion(kind: .code, counter: .counter(0), lineStart: 21, columnStart: 12, lineEnd: 21, columnEnd: 26),
                MappingRegion(kind: .code, counter: .counter(1), lineStart: 21, columnStart: 27, lineEnd: 23, columnEnd: 10),
                MappingRegion(kind: .code, counter: .subtract(0), lineStart: 23, columnStart: 10, lineEnd: 24, columnEnd: 63),
            ],
            binaryIndex: binary)
    }

    static func profile(_ counts: [UInt64], hash: UInt64 = 0) -> ProfileCounters {
        ProfileCounters(functions: [nameRef: [hash: counts]])
    }

    /// With the counters llvm-profdata recorded for it ([1, 0]), the record equals the recorded export's.
    func testWorkedExampleEqualsTheRecordedExport() throws {
        var recorded: ExportFunction?
        _ = try LLVMCovExportReader(onFile: { _ in }, onFunction: { if $0.name == Self.name { recorded = $0 } })
            .read(RecordedSamples.file("Shapes", "coverage.json"))
        let expected = try XCTUnwrap(recorded)
        let built = NativeFunctionRecords.build([Self.summaryMapping()], counters: Self.profile([1, 0]))
        XCTAssertEqual(built.functions.count, 1)
        let function = try XCTUnwrap(built.exportFunctions.first)
        XCTAssertEqual(function.name, expected.name)
        XCTAssertEqual(function.count, expected.count)
        XCTAssertEqual(function.regions, expected.regions)
        XCTAssertEqual(function.filenames.map { $0.hasSuffix("Shapes/Sources/Shapes/Describe.swift") }, [true])
        XCTAssertFalse(built.functions[0].hasUnreliableCounts)
        var expectedDiagnostics = NativeRecordDiagnostics()
        expectedDiagnostics.profiled = 1
        XCTAssertEqual(built.diagnostics, expectedDiagnostics, "nothing dropped; the one record has the profile's counters")
    }

    func testUnknownFunctionCountsZero() throws {
        let built = NativeFunctionRecords.build([Self.summaryMapping()], counters: ProfileCounters())
        let function = try XCTUnwrap(built.functions.first)
        XCTAssertEqual(function.executionCount, 0)
        XCTAssertEqual(function.regions.map(\.count), [0, 0, 0, 0])
        XCTAssertEqual(built.diagnostics, NativeRecordDiagnostics())
    }

    func testHashMismatchIsDroppedAndCounted() {
        let built = NativeFunctionRecords.build([Self.summaryMapping()], counters: Self.profile([1, 0], hash: 7))
        XCTAssertTrue(built.functions.isEmpty)
        XCTAssertEqual(built.diagnostics.hashMismatches, [Self.name])
    }

    /// A profile with fewer counters than the mapping refers to (another build): dropped silently by llvm, counted here.
    func testOutOfRangeCounterDropsTheRecord() {
        let built = NativeFunctionRecords.build([Self.summaryMapping()], counters: Self.profile([1]))
        XCTAssertTrue(built.functions.isEmpty)
        XCTAssertEqual(built.diagnostics.evaluationErrors, [Self.name])
        var outOfRangeExpression = Self.summaryMapping()
        outOfRangeExpression.regions[3].counter = .add(5)
        let second = NativeFunctionRecords.build([outOfRangeExpression], counters: Self.profile([1, 0]))
        XCTAssertEqual(second.diagnostics.evaluationErrors, [Self.name])
    }

    /// A cyclic expression (malformed mapping) is an error, not a hang.
    func testCyclicExpressionDropsTheRecord() {
        var cyclic = Self.summaryMapping()
        cyclic.expressions = [MappingExpression(lhs: .counter(0), rhs: .add(1)),
                              MappingExpression(lhs: .subtract(0), rhs: .counter(1))]
        cyclic.regions[3].counter = .subtract(0)
        let built = NativeFunctionRecords.build([cyclic], counters: Self.profile([1, 0]))
        XCTAssertTrue(built.functions.isEmpty)
        XCTAssertEqual(built.diagnostics.evaluationErrors, [Self.name])
    }

    /// Lost updates (#1 > #0): the subtraction goes negative, the stored count wraps, export prints
    /// INT64_MAX, and the region is flagged; the others are not.
    func testNegativeExpressionWrapsAndIsFlagged() throws {
        let built = NativeFunctionRecords.build([Self.summaryMapping()], counters: Self.profile([1, 3]))
        let function = try XCTUnwrap(built.functions.first)
        XCTAssertEqual(function.regions.map(\.count), [1, 1, 3, UInt64(bitPattern: -2)])
        XCTAssertEqual(function.regions.map(\.isUnreliable), [false, false, false, true])
        XCTAssertTrue(function.hasUnreliableCounts)
        XCTAssertEqual(function.exportFunction.regions.map(\.executionCount), [1, 1, 3, UInt64(Int64.max)])
        // llvm sums the wrapped value before export clamps it: -2 + 5 = 3 at the shared range.
        var other = function
        other.name = "other"
        other.regions = [CountedRegion(lineStart: 23, columnStart: 10, lineEnd: 24, columnEnd: 63, count: 5)]
        let segments = try XCTUnwrap(NativeFileCoverage.files([function, other]).first?.segments)
        XCTAssertTrue(segments.contains { $0.line == 23 && $0.column == 10 && $0.count == 3 && $0.isRegionEntry })
        // Alone, the wrapped count prints clamped.
        let alone = try XCTUnwrap(NativeFileCoverage.files([function]).first?.segments)
        XCTAssertTrue(alone.contains { $0.line == 23 && $0.column == 10 && $0.count == UInt64(Int64.max) })
    }

    /// Several binaries with the same function: the first record (filenames, name) wins.
    func testDuplicateAcrossBinariesIsKeptOnce() throws {
        var second = Self.summaryMapping(binary: 1)
        second.regions.removeLast()
        let built = NativeFunctionRecords.build([Self.summaryMapping(), second], counters: Self.profile([1, 0]))
        XCTAssertEqual(built.functions.count, 1)
        XCTAssertEqual(built.functions[0].regions.count, 4)
        XCTAssertEqual(built.functions[0].binaryIndex, 0)
        XCTAssertEqual(built.diagnostics.duplicates, 1)
        // Same name in another file is another function.
        let elsewhere = Self.summaryMapping(filenames: ["/elsewhere.swift"], binary: 1)
        XCTAssertEqual(NativeFunctionRecords.build([Self.summaryMapping(), elsewhere], counters: Self.profile([1, 0])).functions.count, 2)
    }

    /// Private symbols' PGO names carry `<Filenames[0]>:`; it is stripped with its delimiter, byte-wise.
    func testNamePrefixIsStripped() {
        let prefixed = Self.summaryMapping(pgoName: Self.describe + ":" + Self.name)
        XCTAssertEqual(NativeFunctionRecords.build([prefixed], counters: ProfileCounters()).functions.first?.name, Self.name)
        XCTAssertEqual(NativeFunctionRecords.displayName("other.swift:f", firstFilename: "/a/b.swift"), "other.swift:f")
        XCTAssertEqual(NativeFunctionRecords.displayName("f", firstFilename: nil), "f")
        // NFD "é" in the name, NFC in the filename: equal as Swift strings, different bytes, not stripped.
        let nfd = "/tmp/cafe\u{301}.swift:f", nfc = "/tmp/caf\u{E9}.swift"
        XCTAssertEqual(NativeFunctionRecords.displayName(nfd, firstFilename: nfc), nfd)
        XCTAssertEqual(NativeFunctionRecords.displayName("/tmp/caf\u{E9}.swift:f", firstFilename: nfc), "f")
    }

    /// A one-region Zero-counter dummy for a function counted in another TU is skipped.
    func testZeroRegionDummyIsSkipped() {
        var dummy = Self.summaryMapping()
        dummy.expressions = []
        dummy.regions = [MappingRegion(kind: .code, counter: .zero, lineStart: 1, columnStart: 1, lineEnd: 2, columnEnd: 1)]
        XCTAssertTrue(NativeFunctionRecords.build([dummy], counters: Self.profile([4])).functions.isEmpty)
        XCTAssertEqual(NativeFunctionRecords.build([dummy], counters: ProfileCounters()).functions.count, 1)
    }

    func testUnnamedRecordIsCounted() {
        let built = NativeFunctionRecords.build([Self.summaryMapping(pgoName: "")], counters: ProfileCounters())
        XCTAssertTrue(built.functions.isEmpty)
        XCTAssertEqual(built.diagnostics.unnamed, 1)
    }

    /// Thousands of records, so that they are evaluated in several chunks (each written into its
    /// own part of the result, the gaps closed afterwards): unnamed records and dummies dropped,
    /// duplicates of records in earlier chunks dropped, every kept record intact and in mapping
    /// order. The expectation is llvm's rules applied one record at a time.
    func testManyRecordsAcrossChunksKeepLLVMOrderAndRules() throws {
        let count = 3_000
        XCTAssertGreaterThan(Parallel.chunks(count).count, 1, "the records must span several chunks")
        var mapped: [MappedFunction] = []
        var profiles: [UInt64: [UInt64: [UInt64]]] = [:]
        for i in 0..<count {
            // Every 13th record repeats the name and file of the record 600 before it (another chunk).
            let source = i >= 600 && i % 13 == 0 ? i - 600 : i
            let regions = (0...(i % 4)).map { k in
                MappingRegion(kind: .code, counter: .counter(0), lineStart: UInt32(i + 1), columnStart: UInt32(k + 1),
                              lineEnd: UInt32(i + 2), columnEnd: 1)
            }
            var function = MappedFunction(nameRef: UInt64(i + 1), pgoName: "f\(source)", funcHash: 0,
                                          filenames: ["/src/\(source % 50).swift"], expressions: [], regions: regions)
            profiles[UInt64(i + 1)] = [0: [UInt64(i % 3)]]
            if i % 7 == 3 { function.pgoName = "" }
            if i % 11 == 5 {
                function.regions = [MappingRegion(kind: .code, counter: .zero, lineStart: 1, columnStart: 1, lineEnd: 2, columnEnd: 1)]
                profiles[UInt64(i + 1)] = [0: [4]]
            }
            mapped.append(function)
        }
        var expected: [Int] = []
        var seen = Set<String>()
        var unnamed = 0, dummies = 0, duplicates = 0
        for (i, function) in mapped.enumerated() {
            guard function.pgoName != "" else { unnamed += 1; continue }
            guard i % 11 != 5 else { dummies += 1; continue }
            guard seen.insert(function.filenames[0] + "|" + function.pgoName!).inserted else { duplicates += 1; continue }
            expected.append(i)
        }
        XCTAssertGreaterThan(duplicates, 0)
        let built = NativeFunctionRecords.build(mapped, counters: ProfileCounters(functions: profiles))
        XCTAssertEqual(built.functions.map { Int($0.regions[0].lineStart) - 1 }, expected)
        for (function, i) in zip(built.functions, expected) {
            XCTAssertEqual(function.name, mapped[i].pgoName)
            XCTAssertEqual(function.filenames, mapped[i].filenames)
            XCTAssertEqual(function.regions.count, i % 4 + 1)
            XCTAssertEqual(function.executionCount, UInt64(i % 3))
        }
        XCTAssertEqual(built.diagnostics.unnamed, unnamed)
        XCTAssertEqual(built.diagnostics.zeroRegionDummies, dummies)
        XCTAssertEqual(built.diagnostics.duplicates, duplicates)
    }

    /// Branch regions go apart with both counts; decisions are not evaluated; folded sides are marked.
    func testBranchesGoApart() throws {
        var mapping = Self.summaryMapping()
        mapping.regions.append(MappingRegion(kind: .branch, counter: .counter(1), falseCounter: .subtract(0),
                                             lineStart: 21, columnStart: 12, lineEnd: 21, columnEnd: 26))
        mapping.regions.append(MappingRegion(kind: .branch, counter: .counter(0), falseCounter: .zero,
                                             lineStart: 22, columnStart: 1, lineEnd: 22, columnEnd: 5))
        mapping.regions.append(MappingRegion(kind: .mcdcDecision, counter: .counter(99),
                                             lineStart: 21, columnStart: 12, lineEnd: 21, columnEnd: 26))
        let function = try XCTUnwrap(NativeFunctionRecords.build([mapping], counters: Self.profile([5, 2])).functions.first)
        XCTAssertEqual(function.regions.count, 4)
        XCTAssertEqual(function.branches.map(\.count), [2, 5])
        XCTAssertEqual(function.branches.map(\.falseCount), [3, 0])
        XCTAssertEqual(function.branches.map(\.falseFolded), [false, true])
        var summary = SegmentBuilder()
        let tally = NativeSummaries.functionSummary(function, builder: &summary).branches
        XCTAssertEqual(tally, CoverageRatio(covered: 3, total: 3))
    }

    /// Filenames that are equal as Swift strings but not as bytes are two files, in byte order.
    func testCanonicallyEquivalentFilenamesAreDifferentFiles() throws {
        let nfc = "/tmp/caf\u{E9}.swift", nfd = "/tmp/cafe\u{301}.swift"
        let a = CountedFunction(name: "a", filenames: [nfc], regions: [
            CountedRegion(lineStart: 1, columnStart: 1, lineEnd: 2, columnEnd: 1, count: 1)], executionCount: 1)
        let b = CountedFunction(name: "b", filenames: [nfd], regions: [
            CountedRegion(lineStart: 5, columnStart: 1, lineEnd: 6, columnEnd: 1, count: 0)], executionCount: 0)
        let files = NativeFileCoverage.files([a, b])
        XCTAssertEqual(files.map { Array($0.filename.utf8) }, [Array(nfd.utf8), Array(nfc.utf8)])
        XCTAssertEqual(files.map { $0.segments?.first?.line }, [5, 1])
        let summaries = NativeSummaries.fileSummaries([a, b])
        XCTAssertEqual(summaries.map(\.summary.functions), [CoverageRatio(covered: 0, total: 1), CoverageRatio(covered: 1, total: 1)])
    }

    /// Timing on a synthetic file: 10k functions × 10 nested and sibling regions (100k regions).
    func testLargeSyntheticFileTiming() {
        var functions: [CountedFunction] = []
        for f in 0..<10_000 {
            let line = UInt32(f * 20 + 1)
            var regions = [CountedRegion(lineStart: line, columnStart: 1, lineEnd: line + 18, columnEnd: 2, count: UInt64(f % 3))]
            for r in 0..<9 {
                let l = line + 1 + UInt32(r * 2)
                regions.append(CountedRegion(lineStart: l, columnStart: 5, lineEnd: l + 1, columnEnd: 6,
                                             count: UInt64((f + r) % 4), kind: r == 4 ? .skipped : .code))
            }
            functions.append(CountedFunction(name: "f\(f)", filenames: ["/big.swift"], regions: regions,
                                             executionCount: UInt64(f % 3)))
        }
        let clock = ContinuousClock()
        var segments = 0
        let files = clock.measure { segments = NativeFileCoverage.files(functions)[0].segments?.count ?? 0 }
        let summaries = clock.measure { _ = NativeSummaries.fileSummaries(functions) }
        XCTAssertGreaterThan(segments, 100_000)
        print("synthetic 100k-region file: segments \(files) (\(segments) segments), summaries \(summaries)")
    }
}
