import XCTest
@testable import TestscopeCoverage
import TestscopeExecution

/// The native engine's file-by-file path into the model (`NativeRecordSource.readByFile`: segments
/// and function records made together, one region pool per file) against the export-shaped path
/// every other source takes, on the recorded samples' records.
final class NativeModelPathTests: XCTestCase {
    func options(_ sample: String) throws -> CoverageBuildOptions {
        let root = RecordedSamples.packageRoot(sample)
        return CoverageBuildOptions(
            packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
            pathEquivalences: [PathEquivalence(from: try RecordedSamples.recordedRoot(sample), to: root.path)],
            demangler: SwiftDemangler(library: try Toolchain.locate().demangler), createdAt: Date(timeIntervalSince1970: 0))
    }

    /// The functions with one filenames array per run of equal lists, as the mapping decoder shares them.
    func sharingFilenames(_ functions: [CountedFunction]) -> [CountedFunction] {
        var shared = functions
        for i in shared.indices.dropFirst() where shared[i].filenames == shared[i - 1].filenames {
            shared[i].filenames = shared[i - 1].filenames
        }
        return shared
    }

    func testFileByFileReadingBuildsTheSameModelAsExportShapedRecords() throws {
        var compared = 0
        for sample in RecordedSamples.names {
            let functions = try NativeSegmentOracleTests.countedFunctions(sample)
            let builder = CoverageBuilder(options: try options(sample))
            let exportShaped = try builder.build(sources: [RecordsInMemory(
                name: sample, files: NativeFileCoverage.files(functions), functions: functions.map(\.exportFunction))])
            for variant in [functions, sharingFilenames(functions)] {
                let native = try builder.build(sources: [NativeRecordSource(name: sample, functions: variant)])
                XCTAssertEqual(native.files.map(\.path), exportShaped.files.map(\.path), sample)
                XCTAssertEqual(native.files, exportShaped.files, sample)
                XCTAssertEqual(native.warnings, exportShaped.warnings, sample)
            }
            // Several sources (segments merged, records of one symbol merged): both paths alike too.
            let twice = try builder.build(sources: [NativeRecordSource(name: sample, functions: functions),
                                                    NativeRecordSource(name: sample, functions: sharingFilenames(functions))])
            let twiceExportShaped = try builder.build(sources: (0..<2).map { _ in RecordsInMemory(
                name: sample, files: NativeFileCoverage.files(functions), functions: functions.map(\.exportFunction)) })
            XCTAssertEqual(twice.files, twiceExportShaped.files, sample)
            XCTAssertFalse(exportShaped.files.flatMap(\.functions).isEmpty, sample)
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 4)
    }

    /// Without diff coverage the regions' starts are not collected; everything else is the same model.
    func testRegionStartsAreLeftOutOnlyWhenNoDiffNeedsThem() throws {
        var counted = 0
        for sample in RecordedSamples.names {
            let functions = try NativeSegmentOracleTests.countedFunctions(sample)
            var without = try options(sample)
            without.needsRegionStarts = false
            let full = try CoverageBuilder(options: try options(sample)).build(sources: [NativeRecordSource(name: sample, functions: functions)])
            let lean = try CoverageBuilder(options: without).build(sources: [NativeRecordSource(name: sample, functions: functions)])
            XCTAssertTrue(lean.files.allSatisfy(\.regionStarts.isEmpty), sample)
            counted += full.files.reduce(0) { $0 + $1.regionStarts.count }
            // Every file's regions total counts one start each, in line order.
            for file in full.files {
                XCTAssertEqual(file.regionStarts.count, file.summary.regions.total, "\(sample) \(file.path)")
                XCTAssertEqual(file.regionStarts.map(\.line), file.regionStarts.map(\.line).sorted(), "\(sample) \(file.path)")
            }
            var stripped = full.files
            for i in stripped.indices { stripped[i].regionStarts = [] }
            XCTAssertEqual(lean.files, stripped, sample)
        }
        XCTAssertGreaterThan(counted, 0)
    }

    /// A record's regions are let go after the last batch of files that reads them: records whose
    /// regions lie in two files batches apart (and an expansion into a third) still give every file
    /// its segments and functions, as the export-shaped path does.
    func testRecordsSpanningBatchesKeepTheirRegionsUntilTheirLastFile() throws {
        let files = (0..<(3 * NativeRecordSource.batchSize + 5)).map { String(format: "/src/F%03d.swift", $0) }
        var functions: [CountedFunction] = []
        for (i, file) in files.enumerated() {
            let far = files[(i + 2 * NativeRecordSource.batchSize) % files.count]
            let third = files[(i + 7) % files.count]
            functions.append(CountedFunction(
                name: "$s1M1f\(i)yyF", filenames: [file, far, third],
                regions: [
                    CountedRegion(lineStart: 1, columnStart: 1, lineEnd: 9, columnEnd: 2, count: UInt64(i % 3)),
                    CountedRegion(lineStart: 3, columnStart: 5, lineEnd: 3, columnEnd: 20, count: 0, fileID: 0,
                                  expandedFileID: 2, kind: .expansion),
                    CountedRegion(lineStart: 20, columnStart: 1, lineEnd: 24, columnEnd: 2, count: UInt64(i % 2), fileID: 1),
                    CountedRegion(lineStart: 40, columnStart: 1, lineEnd: 41, columnEnd: 2, count: 1, fileID: 2),
                ],
                executionCount: UInt64(i % 3)))
            // A record of the far file alone, so that it has functions of its own as well.
            functions.append(CountedFunction(name: "$s1M1g\(i)yyF", filenames: [far],
                                             regions: [CountedRegion(lineStart: 30, columnStart: 1, lineEnd: 31, columnEnd: 2, count: 1)],
                                             executionCount: 1))
        }
        let root = URL(fileURLWithPath: "/src")
        var options = CoverageBuildOptions(packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
                                           createdAt: Date(timeIntervalSince1970: 0))
        options.needsFunctionNames = false
        let builder = CoverageBuilder(options: options)
        let native = try builder.build(sources: [NativeRecordSource(name: "p", functions: sharingFilenames(functions))])
        let exportShaped = try builder.build(sources: [RecordsInMemory(
            name: "p", files: NativeFileCoverage.files(functions), functions: functions.map(\.exportFunction))])
        XCTAssertEqual(native.files.count, files.count)
        XCTAssertEqual(native.files, exportShaped.files)
        XCTAssertTrue(native.files.allSatisfy { $0.functions.count == 2 }, "each file: its own f and the g of the file 64 before it")

        // Streamed: the same files, whole, a batch at a time and in the report's order; the report keeps their summaries.
        var batches: [[FileCoverage]] = []
        let streamed = try builder.build(sources: [NativeRecordSource(name: "p", functions: sharingFilenames(functions))], onFiles: { batches.append($0) })
        XCTAssertEqual(batches.flatMap { $0 }, native.files)
        XCTAssertGreaterThanOrEqual(batches.count, 4, "\(files.count) files, batches of \(NativeRecordSource.batchSize)")
        XCTAssertTrue(batches.allSatisfy { $0.count <= NativeRecordSource.batchSize + 1 })
        XCTAssertEqual(streamed.totals, native.totals)
        XCTAssertEqual(streamed.directories, native.directories)
        XCTAssertEqual(streamed.files, native.files.map(\.summarized))
        XCTAssertEqual(streamed, native.report)
    }

    /// What the report keeps of a file: its summary, ranges and excluded lines.
    func testTheSummaryKeepsTheRangesTheTableAndScreenRead() throws {
        var checked = 0
        for sample in RecordedSamples.names {
            let functions = try NativeSegmentOracleTests.countedFunctions(sample)
            let model = try CoverageBuilder(options: try options(sample)).build(sources: [NativeRecordSource(name: sample, functions: functions)])
            XCTAssertEqual(model.report.files, model.files.map(\.summarized))
            for file in model.files where !file.lines.isEmpty {
                let kept = file.summarized
                XCTAssertEqual(kept.summary, file.summary)
                XCTAssertEqual(kept.missingRanges, file.missingRanges)
                XCTAssertEqual(kept.unreliableRanges, file.unreliableRanges)
                XCTAssertEqual(kept.excludedLines, file.excludedLines)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 10)
    }

    func testTwoFilenamesJoinedByAnEquivalenceKeepTheirRecordsInOrder() throws {
        // f0 in /z/A.swift came first; f1, the same symbol from another binary, is in /a/A.swift, which
        // sorts first. Both names become /src/A.swift: f0 must stay the first instantiation (its two
        // regions, both run), as when every function came one by one.
        func region(_ line: UInt32, _ endLine: UInt32, _ count: UInt64) -> CountedRegion {
            CountedRegion(lineStart: line, columnStart: 1, lineEnd: endLine, columnEnd: 9, count: count)
        }
        let functions = [
            CountedFunction(name: "$s1M1fyyF", filenames: ["/z/A.swift"], regions: [region(1, 3, 1), region(2, 2, 1)], executionCount: 1),
            CountedFunction(name: "$s1M1fyyF", filenames: ["/a/A.swift"], regions: [region(1, 3, 0)], executionCount: 0, binaryIndex: 1),
            CountedFunction(name: "$s1M1gyyF", filenames: ["/a/A.swift"], regions: [region(5, 6, 1)], executionCount: 1, binaryIndex: 1),
        ]
        let root = URL(fileURLWithPath: "/src")
        var options = CoverageBuildOptions(
            packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
            pathEquivalences: [PathEquivalence(from: "/z", to: "/src"), PathEquivalence(from: "/a", to: "/src")],
            createdAt: Date(timeIntervalSince1970: 0))
        options.needsFunctionNames = false
        let builder = CoverageBuilder(options: options)
        let native = try builder.build(sources: [NativeRecordSource(name: "p", functions: functions)])
        let exportShaped = try builder.build(sources: [RecordsInMemory(
            name: "p", files: NativeFileCoverage.files(functions), functions: functions.map(\.exportFunction))])
        XCTAssertEqual(native.files, exportShaped.files)
        let f = try XCTUnwrap(native.files.first?.functions.first { $0.mangledName == "$s1M1fyyF" })
        XCTAssertEqual(f.regions, CoverageRatio(covered: 2, total: 2))
        XCTAssertEqual(f.count, 1)
    }

    func testFilenameRunsFollowSharedArraysOnly() {
        let a = ["/p/A.swift"], b = ["/p/B.swift"]
        func function(_ filenames: [String]) -> CountedFunction {
            CountedFunction(name: "f", filenames: filenames, regions: [CountedRegion(lineStart: 1, columnStart: 1, lineEnd: 2, columnEnd: 1, count: 1)],
                            executionCount: 1)
        }
        // An equal list in another array starts a new run: runs are by identity, their names taken once.
        let functions = [function(a), function(a), function(b), function(a.map { $0 }), function(a)]
        XCTAssertEqual(Array(FilenameRuns(functions)).count, 4)
        XCTAssertEqual(Array(FilenameRuns(functions)).map(\.count).reduce(0, +), functions.count)
        XCTAssertEqual(NativeFileCoverage.uniqueSourceFiles(functions), ["/p/A.swift", "/p/B.swift"])
        XCTAssertEqual(FilenameIndex(functions).records(for: "/p/A.swift"), [0, 1, 3, 4])
        XCTAssertEqual(FilenameIndex(functions).records(for: "/p/B.swift"), [2])
    }

    func record(_ name: String, count: UInt64, line: UInt32, executed: [Bool], into records: inout FileRecords) {
        let regions = executed.enumerated().map { i, ran in
            ExportRegion(lineStart: line + UInt32(i), columnStart: 1, lineEnd: line + UInt32(i), columnEnd: 9,
                         executionCount: ran ? 1 : 0, fileID: 0, expandedFileID: 0, kind: .code)
        }
        let function = ExportFunction(name: name, count: count, regions: regions, filenames: ["/p/A.swift"])
        records.records.append(FunctionRecord(function, pool: records.pool)!)
    }

    func testRecordsOfTheSameSymbolAreMergedAndOthersLeftAlone() {
        var records = FileRecords()
        record("$s1A1fyyF", count: 2, line: 1, executed: [true, false], into: &records)
        record("$s1A1gyyF", count: 0, line: 10, executed: [false], into: &records)
        XCTAssertFalse(FileRecords.mayRepeatNames(records.records))
        var other = FileRecords()
        record("$s1A1fyyF", count: 3, line: 1, executed: [false, true], into: &other)
        records.append(other)
        XCTAssertEqual(records.records[2].regionStart, 3, "the appended record's regions follow the pool's")
        XCTAssertTrue(FileRecords.mayRepeatNames(records.records))
        records.mergeSameSymbols()
        XCTAssertEqual(records.records.map(\.mangledName), ["$s1A1fyyF", "$s1A1gyyF"])
        XCTAssertEqual(records.records[0].count, 5)
        XCTAssertEqual(records.pool.slice(records.records[0].regionStart, 2).map(\.executed), [true, true])
    }

    func testNamesThatAreNotASCIIAreAlwaysMergedByStringEquality() {
        // "é" precomposed and decomposed are one `String`: the merge by name treats them as one symbol.
        var records = FileRecords()
        record("caf\u{E9}", count: 1, line: 1, executed: [true], into: &records)
        record("cafe\u{301}", count: 1, line: 1, executed: [false], into: &records)
        XCTAssertTrue(FileRecords.mayRepeatNames(records.records))
        records.mergeSameSymbols()
        XCTAssertEqual(records.records.count, 1)
        XCTAssertEqual(records.records[0].count, 2)
    }

    /// A source whose modification time is more than a second after the data was recorded is named
    /// in a warning (its time read with one `stat`); one older, or within the second, is not.
    func testASourceChangedAfterTheRecordingIsNamed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-stale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("A.swift")
        try Data("func f() {\n    print(1)\n}\n".utf8).write(to: source)
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: source.path)
        XCTAssertEqual(try XCTUnwrap(InputFile.modificationDate(source.path)).timeIntervalSince1970, 1_700_000_000, accuracy: 0.001)
        XCTAssertNil(InputFile.modificationDate(root.appendingPathComponent("missing.swift").path))
        let functions = [CountedFunction(name: "$s1M1fyyF", filenames: [source.path],
                                         regions: [CountedRegion(lineStart: 1, columnStart: 10, lineEnd: 3, columnEnd: 2, count: 1)], executionCount: 1)]
        func warnings(recordedAt: Date) throws -> [String] {
            var options = CoverageBuildOptions(packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
                                               dataRecordedAt: recordedAt, createdAt: Date(timeIntervalSince1970: 0))
            options.needsFunctionNames = false
            return try CoverageBuilder(options: options).build(sources: [NativeRecordSource(name: "p", functions: functions)])
                .warnings.map(\.message).filter { $0.contains("changed after the coverage data was recorded") }
        }
        XCTAssertEqual(try warnings(recordedAt: modified.addingTimeInterval(-10)).count, 1)
        XCTAssertEqual(try warnings(recordedAt: modified.addingTimeInterval(-0.5)), [])
        XCTAssertEqual(try warnings(recordedAt: modified.addingTimeInterval(10)), [])
    }
}
