import Foundation
@testable import TestscopeHistory
@testable import TestscopeImpact
import XCTest

/// Impact maps in a real history file: round trip, the newest ancestor's map, another environment,
/// an older schema, and damaged files left as they were.
final class ImpactStoreTests: XCTestCase {
    var folder: URL!
    var url: URL { folder.appendingPathComponent("h.sqlite") }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("impact-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func map(_ commit: String, toolchain: String = "Swift 6.3.1") -> ImpactMap {
        var map = ImpactFixture.standard.map(executed: ImpactFixture.executed)
        map.commit = commit
        map.environment.toolchain = toolchain
        return map
    }

    /// A run stored in the history (a map belongs to one), started `minute` minutes in.
    func storeRun(_ commit: String, minute: Double) throws -> String {
        var run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: 1_800_000_000 + minute * 60),
                             finishedAt: Date(timeIntervalSince1970: 1_800_000_010 + minute * 60), exitStatus: 0)
        run.commit = commit
        let store = try HistoryStore(url: url, mode: .write)
        try store.append(HistoryRecord(run: run))
        try store.close()
        return run.uuid
    }

    func testRoundTripAndTheNewestAncestorsMap() throws {
        let store = HistoryImpactStore(url: url)
        try store.save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        try store.save(map("c2"), runUUID: try storeRun("c2", minute: 1))
        try store.save(map("c9"), runUUID: try storeRun("c9", minute: 2))
        XCTAssertEqual(try store.maps(at: ["c1"]), [map("c1")])
        let environment = map("c1").environment
        // HEAD = c3 (no map), then c2, c1; c9 is on another branch.
        XCTAssertEqual(try store.newestMap(ancestors: ["c3", "c2", "c1"], environment: environment), .found(map("c2")))
        XCTAssertEqual(try store.newestMap(ancestors: ["c4"], environment: environment),
                       .none("no impact map recorded at HEAD or any of its 0 ancestor(s) in this history"))
        var other = environment
        other.toolchain = "Swift 6.4"
        XCTAssertEqual(try store.newestMap(ancestors: ["c2", "c1"], environment: other),
                       .none("the newest map (commit c2) was recorded in another environment: the toolchain changed (Swift 6.3.1 → Swift 6.4)"))
    }

    func testAnOlderEnvironmentsMapIsPassedOverForAnOlderMatchingOne() throws {
        let store = HistoryImpactStore(url: url)
        try store.save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        try store.save(map("c2", toolchain: "Swift 6.2"), runUUID: try storeRun("c2", minute: 1))
        XCTAssertEqual(try store.newestMap(ancestors: ["c2", "c1"], environment: map("c1").environment), .found(map("c1")))
    }

    func testAFileOfSchemaOneReadsWithoutMapsAndIsMigratedOnWrite() throws {
        let db = try SQLiteConnection(path: url.path, create: true, busyTimeout: 1)
        try db.execute(HistorySchema.migrations[0])
        try db.execute("PRAGMA application_id = \(HistorySchema.applicationID); PRAGMA user_version = 1")
        db.close()
        XCTAssertEqual(try HistoryImpactStore(url: url).maps(at: ["c1"]), [], "read as it is: no maps yet")
        XCTAssertEqual(try HistoryStore(url: url, mode: .read).records(), [])
        try HistoryImpactStore(url: url).save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        XCTAssertEqual(try HistoryImpactStore(url: url).maps(at: ["c1"]), [map("c1")])
    }

    /// Maps are stored compressed (schema 4); a row written before (its JSON as text, no `map_size`) still reads.
    func testMapsAreStoredCompressedAndOlderTextRowsStillRead() throws {
        try HistoryImpactStore(url: url).save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        let json = try map("c1").encoded()
        let db = try SQLiteConnection(path: url.path, create: false, busyTimeout: 1)
        let sizes = try db.prepare("SELECT length(map), map_size, typeof(map) FROM impact_map")
        XCTAssertTrue(try sizes.step())
        XCTAssertEqual(sizes.int(1), Int64(json.count))
        XCTAssertLessThan(sizes.int(0), Int64(json.count))
        XCTAssertEqual(sizes.text(2), "blob")
        try db.prepare("UPDATE impact_map SET map = ?, map_size = NULL").run([.text(String(decoding: json, as: UTF8.self))])
        db.close()
        XCTAssertEqual(try HistoryImpactStore(url: url).maps(at: ["c1"]), [map("c1")])
    }

    func testADamagedMapIsOneErrorAndTheFileIsLeftAsItWas() throws {
        try HistoryImpactStore(url: url).save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        let db = try SQLiteConnection(path: url.path, create: false, busyTimeout: 1)
        try db.prepare("UPDATE impact_map SET map = ?").run([.text("{\"version\": 1, \"commit\": ")])
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        let before = try Data(contentsOf: url)
        XCTAssertThrowsError(try HistoryImpactStore(url: url).maps(at: ["c1"])) { error in
            guard case let .unreadable(path, detail)? = error as? HistoryError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, url.path)
            XCTAssertTrue(detail.hasPrefix("its impact map of commit c1 is damaged"), detail)
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
    }

    /// A selection decodes the one map it selects with, not every map of the history (replayed on
    /// swift-algorithms: 13 maps of 95 KB took 0.4 s of a 2 s `--why`, growing with the history): a damaged
    /// older map is never read when a newer ancestor's map applies.
    func testTheNewestMapIsFoundWithoutDecodingTheOlderOnes() throws {
        let store = HistoryImpactStore(url: url)
        try store.save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        try store.save(map("c2"), runUUID: try storeRun("c2", minute: 1))
        let db = try SQLiteConnection(path: url.path, create: false, busyTimeout: 1)
        try db.prepare("UPDATE impact_map SET map = ? WHERE commit_sha = 'c1'").run([.text("{\"version\": 1, \"commit\": ")])
        db.close()
        XCTAssertEqual(try store.newestMap(ancestors: ["c2", "c1"], environment: map("c2").environment), .found(map("c2")))
        XCTAssertThrowsError(try store.newestMap(ancestors: ["c1"], environment: map("c1").environment))
    }

    func testADamagedDatabaseIsOneErrorAndTheFileIsLeftAsItWas() throws {
        try HistoryImpactStore(url: url).save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        var bytes = try Data(contentsOf: url)
        // Past the header: the pages holding the tables, overwritten.
        for offset in stride(from: 1024, to: bytes.count, by: 7) { bytes[offset] = 0xA5 }
        try bytes.write(to: url)
        XCTAssertThrowsError(try HistoryImpactStore(url: url).maps(at: ["c1"])) { XCTAssertNotNil($0 as? HistoryError, "\($0)") }
        XCTAssertEqual(try Data(contentsOf: url), bytes)
    }

    func testMergeCopiesTheMapsOnce() throws {
        try HistoryImpactStore(url: url).save(map("c1"), runUUID: try storeRun("c1", minute: 0))
        let into = folder.appendingPathComponent("all.sqlite")
        XCTAssertEqual(try HistoryStore.merge([url], into: into).added, 1)
        XCTAssertEqual(try HistoryStore.merge([url, url], into: into).added, 0)
        XCTAssertEqual(try HistoryImpactStore(url: into).maps(at: ["c1"]), [map("c1")])
    }

    func testSavingNeedsTheStoredRun() throws {
        _ = try storeRun("c1", minute: 0)
        XCTAssertThrowsError(try HistoryImpactStore(url: url).save(map("c1"), runUUID: "nope")) { XCTAssertNotNil($0 as? HistoryError) }
        XCTAssertEqual(try HistoryImpactStore(url: url).maps(at: ["c1"]), [])
    }
}
