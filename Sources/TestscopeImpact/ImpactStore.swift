import Foundation
import TestscopeCoverage
import TestscopeHistory
import TestscopeProfileData

/// Where impact maps are kept (the history file today; another backend implements these two).
package protocol ImpactMapStore {
    /// Stores `map` with the run `runUUID` that recorded it.
    func save(_ map: ImpactMap, runUUID: String) throws
    /// The maps recorded at any of `commits`, newest recording first, each decoded only by its `load`.
    func storedMaps(at commits: [String]) throws -> [StoredImpactMap]
}

/// A map in a store: its commit and environment, the map decoded when asked for (a selection decodes
/// one map, not every map of a long history).
package struct StoredImpactMap {
    package var commit: String
    package var environment: ImpactEnvironment
    package var load: () throws -> ImpactMap
}

/// The map to select with, or why there is none (the full run's note).
package enum MapLookup: Equatable, Sendable {
    case found(ImpactMap)
    case none(String)
}

extension ImpactMapStore {
    /// The maps recorded at any of `commits`, newest recording first, decoded.
    package func maps(at commits: [String]) throws -> [ImpactMap] { try storedMaps(at: commits).map { try $0.load() } }

    /// The map of the newest commit of `ancestors` (newest first, as `git rev-list HEAD` gives them)
    /// recorded in `environment`; else why not.
    package func newestMap(ancestors: [String], environment: ImpactEnvironment) throws -> MapLookup {
        guard !ancestors.isEmpty else { return .none("no commits to look up") }
        let maps = try storedMaps(at: ancestors)
        guard !maps.isEmpty else { return .none("no impact map recorded at HEAD or any of its \(ancestors.count - 1) ancestor(s) in this history") }
        let rank = Dictionary(ancestors.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Newest commit first; among a commit's maps the newest recording (`maps` is in that order, sorting is stable).
        let ordered = maps.enumerated().sorted { (rank[$0.element.commit] ?? .max, $0.offset) < (rank[$1.element.commit] ?? .max, $1.offset) }.map(\.element)
        if let match = ordered.first(where: { $0.environment.mismatch(environment) == nil }) { return .found(try match.load()) }
        let newest = ordered[0]
        return .none("the newest map (commit \(newest.commit.prefix(12))) was recorded in another environment: \(newest.environment.mismatch(environment)!)")
    }
}

/// Impact maps in the history file (`--history FILE.sqlite`, schema 2's `impact_map`).
package struct HistoryImpactStore: ImpactMapStore {
    package var url: URL
    package var busyTimeout: TimeInterval

    package init(url: URL, busyTimeout: TimeInterval = HistoryStore.defaultBusyTimeout) {
        self.url = url
        self.busyTimeout = busyTimeout
    }

    package func save(_ map: ImpactMap, runUUID: String) throws {
        let environment = String(decoding: try JSONEncoder().encode(map.environment), as: UTF8.self)
        // Mostly mangled names and checksums: compresses about fivefold.
        let json = Array(try map.encoded())
        var row = HistoryImpactMap(commit: map.commit, tree: map.tree, dirty: !map.dirtyFiles.isEmpty, environment: environment,
                                   map: try Zlib.compress(json), mapSize: json.count)
        if let lines = map.recording.lines {
            // JSON of digits and commas: compresses about tenfold.
            let json = Array(try JSONEncoder().encode(RecordedCoverage(lines: lines, regions: map.recording.regions)))
            row.coverage = HistoryImpactCoverage(size: json.count, bytes: try Zlib.compress(json))
        }
        let store = try HistoryStore(url: url, mode: .write, busyTimeout: busyTimeout)
        try store.saveImpactMap(row, runUUID: runUUID)
        try store.close()
    }

    package func storedMaps(at commits: [String]) throws -> [StoredImpactMap] {
        let store = try HistoryStore(url: url, mode: .read, busyTimeout: busyTimeout)
        let rows = try store.impactMaps(commits: commits)
        try store.close()
        let path = url.historyDisplay
        // One clear error; reading changed nothing in the file.
        func damaged(_ row: HistoryImpactMap, _ error: Error) -> HistoryError {
            .unreadable(path: path, detail: "its impact map of commit \(row.commit.prefix(12)) is damaged (\(error.localizedDescription))")
        }
        return try rows.map { row in
            let environment: ImpactEnvironment
            do { environment = try JSONDecoder().decode(ImpactEnvironment.self, from: Data(row.environment.utf8)) } catch { throw damaged(row, error) }
            return StoredImpactMap(commit: row.commit, environment: environment) {
                // A map of another layout version is not decoded: its environment says why it does not apply.
                guard environment.mapVersion == ImpactMap.formatVersion else {
                    return ImpactMap(commit: row.commit, tree: row.tree, dirtyFiles: [:], environment: environment, files: [], functions: [],
                                     outsideTests: [], tests: [])
                }
                do {
                    let json = try row.mapSize.map { try Zlib.uncompress(row.map, expectedSize: UInt64(max($0, 0))) } ?? row.map
                    var map = try ImpactMap.decoded(Data(json))
                    map.recording.runUUID = row.runUUID
                    return map
                } catch { throw damaged(row, error) }
            }
        }
    }

    /// The per-test lines and regions recorded with `map` (read from this store); nil when none were stored
    /// (a map recorded before schema 3). A damaged blob is the store's one clear error.
    package func recordedCoverage(of map: ImpactMap) throws -> RecordedCoverage? {
        guard let runUUID = map.recording.runUUID else { return nil }
        let store = try HistoryStore(url: url, mode: .read, busyTimeout: busyTimeout)
        let stored = try store.impactCoverage(runUUID: runUUID)
        try store.close()
        guard let stored else { return nil }
        do {
            let json = try Zlib.uncompress(stored.bytes, expectedSize: UInt64(max(stored.size, 0)))
            return try JSONDecoder().decode(RecordedCoverage.self, from: Data(json))
        } catch {
            throw HistoryError.unreadable(path: url.historyDisplay, detail: "the per-test coverage of its impact map of commit \(map.commit.prefix(12)) is damaged (\(error.localizedDescription))")
        }
    }
}

/// What is stored beside a map (`impact_coverage`, zlib): the recording run's per-test lines
/// (`per-test.json`'s content) and the regions each test's functions ran.
package struct RecordedCoverage: Codable, Equatable, Sendable {
    package var lines: PerTestCoverage
    package var regions: PerTestRegions?

    package init(lines: PerTestCoverage, regions: PerTestRegions?) {
        self.lines = lines
        self.regions = regions
    }
}
