import Foundation
@testable import TestscopeCoverage
@testable import TestscopeHistory
@testable import TestscopeImpact
import XCTest

/// Carrying a skipped test's recorded coverage forward: lines moved through the token diff, the recording
/// stored beside its map (and copied by merge), only the skipped tests' contexts carried.
final class CoverageCarryTests: XCTestCase {
    let old = """
        func f() -> Int {
            let a = 1

            // why
            return a
        }
        func g() -> Int { 2 }
        """

    func testLinesMoveWithTheirTokensAndBlankLinesBetweenThem() throws {
        // Two lines above, and g's body edited.
        let new = "// one\n// two\n" + old.replacingOccurrences(of: "{ 2 }", with: "{ 3 }")
        let moved = try XCTUnwrap(LineMover.lines(from: old, to: new, path: "A.swift"))
        XCTAssertEqual(moved[1], [3])
        XCTAssertEqual(moved[2], [4])
        XCTAssertEqual(moved[3], [5], "a blank line inside the body moves with the lines around it")
        XCTAssertEqual(moved[4], [6], "so does a comment line")
        XCTAssertEqual(moved[5], [7])
        XCTAssertEqual(moved[7], [9], "g's line keeps its matched tokens")
        XCTAssertNil(LineMover.lines(from: old, to: nil, path: "A.swift"))
        XCTAssertNil(LineMover.lines(from: old, to: new, path: "notes.txt"))
    }

    func testABlankLineWhereLinesWereInsertedIsDropped() throws {
        let new = old.replacingOccurrences(of: "    let a = 1\n\n", with: "    let a = 1\n    print(a)\n    print(a)\n\n")
        let moved = try XCTUnwrap(LineMover.lines(from: old, to: new, path: "A.swift"))
        XCTAssertEqual(moved[2], [2])
        XCTAssertNil(moved[3], "lines were inserted between its neighbours: where it went is not known")
        XCTAssertEqual(moved[5], [7])
    }

    func testOnlyTheSkippedTestsAreCarriedAndOutsideTestsApart() throws {
        let lines = PerTestCoverage(
            contexts: [.init(id: ""), .init(id: "T.run"), .init(id: "T.skipped")], lost: [],
            files: [.init(path: "A.swift", lastLine: 7, runs: [.init(context: 0, lines: "7", counts: "1"),
                                                                .init(context: 1, lines: "1-2", counts: "4,4"),
                                                                .init(context: 2, lines: "1-2,5", counts: "1,1,1")])])
        var regions = PerTestRegions()
        var files: [String: Int] = [:], names: [String: Int] = [:]
        regions.append([], files: &files, names: &names)
        regions.append([("A.swift", "$s1f", 4, 3, [0])], files: &files, names: &names)
        regions.append([("A.swift", "$s1f", 1, 3, [0, 2])], files: &files, names: &names)
        let new = "// one\n// two\n" + old
        let carried = try XCTUnwrap(CoverageCarry.carried(RecordedCoverage(lines: lines, regions: regions), commit: "c", skipped: ["T.skipped"],
                                                          changes: [FileChange(path: "A.swift", kind: .modified, oldText: old, newText: new)]))
        XCTAssertEqual(carried.tests, 1)
        XCTAssertEqual(carried.lines, ["A.swift": [3: 1, 4: 1, 7: 1]])
        XCTAssertEqual(carried.outsideTests, ["A.swift": [9: 1]])
        XCTAssertEqual(carried.functions["A.swift"]?["$s1f"], CarriedCoverage.Function(count: 1, regions: 3, executed: [0, 2]))
        XCTAssertNil(CoverageCarry.carried(RecordedCoverage(lines: lines, regions: regions), commit: "c", skipped: [], changes: []))
        let deleted = try XCTUnwrap(CoverageCarry.carried(RecordedCoverage(lines: lines, regions: regions), commit: "c", skipped: ["T.skipped"],
                                                          changes: [FileChange(path: "A.swift", kind: .deleted, oldText: old, newText: nil)]))
        XCTAssertEqual(deleted.lines, [:])
        XCTAssertEqual(deleted.functions, [:])
    }

    func testTheRecordingIsStoredBesideTheMapAndMerged() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("carry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("h.sqlite")
        var run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: 1_800_000_000), finishedAt: Date(timeIntervalSince1970: 1_800_000_010), exitStatus: 0)
        run.commit = "c1"
        let history = try HistoryStore(url: url, mode: .write)
        try history.append(HistoryRecord(run: run))
        try history.close()
        var map = ImpactFixture.standard.map(executed: ImpactFixture.executed)
        map.commit = "c1"
        let lines = PerTestCoverage(contexts: [.init(id: ""), .init(id: "T.a")], lost: [],
                                    files: [.init(path: "A.swift", lastLine: 9, runs: [.init(context: 1, lines: "1-9", counts: "1,2,3,4,5,6,7,8,9")])])
        map.recording = ImpactMap.Recording(lines: lines, regions: PerTestRegions())
        try HistoryImpactStore(url: url).save(map, runUUID: run.uuid)
        let found = try XCTUnwrap(try HistoryImpactStore(url: url).maps(at: ["c1"]).first)
        XCTAssertEqual(try HistoryImpactStore(url: url).recordedCoverage(of: found), RecordedCoverage(lines: lines, regions: PerTestRegions()))
        let into = folder.appendingPathComponent("all.sqlite")
        XCTAssertEqual(try HistoryStore.merge([url], into: into).added, 1)
        let merged = try XCTUnwrap(try HistoryImpactStore(url: into).maps(at: ["c1"]).first)
        XCTAssertEqual(try HistoryImpactStore(url: into).recordedCoverage(of: merged)?.lines, lines)
    }
}
