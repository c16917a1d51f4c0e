import Foundation
import TestscopeExecution

/// `--shard K/N`: the K-th of N parts of the tests (1-based), which one `testscope run` takes.
public struct TestShard: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        (self.index, self.count) = (index, count)
    }

    /// `K/N` with 1 ≤ K ≤ N; nil for anything else (`3/2`, `0/2`, `a/b`, `2`).
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }),
              let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }
}

/// How the tests are cut into shards: deterministic for the same test ids (and timings), every test
/// in exactly one shard, XCTest and Swift Testing ids in one pool.
package enum ShardPartition {
    /// The ids of every shard (`count` lists, shard K at index K-1). Without durations: the ids ordered
    /// by `StableHash` (seed 0) and dealt round-robin, so the shards' sizes differ by at most one and a
    /// test's shard does not depend on the order it was listed in. With durations (seconds per id, from
    /// an earlier `tests.json`): longest first onto the least-loaded shard (ties: the lower shard), ids
    /// of equal duration by name; an id without a duration counts the median of the known ones.
    package static func shards(of ids: [String], count: Int, durations: [String: Double]? = nil) -> [[String]] {
        precondition(count >= 1)
        let unique = Array(Set(ids))
        var shards = Array(repeating: [String](), count: count)
        guard let durations, !durations.isEmpty else {
            let ordered = unique.map { (StableHash.hash(seed: 0, $0), $0) }.sorted { $0 < $1 }.map(\.1)
            for (position, id) in ordered.enumerated() { shards[position % count].append(id) }
            return shards
        }
        let median = Self.median(unique.compactMap { durations[$0] })
        let weighted = unique.map { (durations[$0] ?? median, $0) }
            .sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
        var loads = Array(repeating: 0.0, count: count)
        for (duration, id) in weighted {
            let lightest = loads.indices.min { loads[$0] != loads[$1] ? loads[$0] < loads[$1] : $0 < $1 }!
            shards[lightest].append(id)
            loads[lightest] += duration
        }
        return shards
    }

    /// The tests of `list` that fall into `shard`, in the list's order.
    package static func tests(of list: TestList, shard: TestShard, durations: [String: Double]? = nil) -> TestList {
        let mine = Set(shards(of: list.xctest + list.swiftTesting, count: shard.count, durations: durations)[shard.index - 1])
        return TestList(xctest: list.xctest.filter(mine.contains), swiftTesting: list.swiftTesting.filter(mine.contains))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// `--shard-timings FILE`: each test id's duration from an earlier `tests.json` (the cases of a
/// parameterized test summed, since the shard takes the whole test; tests without a duration left out).
package enum ShardTimings {
    package static func read(_ url: URL) throws -> [String: Double] {
        struct File: Decodable {
            struct Test: Decodable { var id: String; var duration: Double? }
            var tests: [Test]
        }
        let bytes: [UInt8]
        do { bytes = try InputFile.read(url) } catch {
            throw TestResultsError.unreadable(path: url.path, reason: error.reason)
        }
        guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)) else {
            throw TestResultsError.notTestsJSON(path: url.path)
        }
        var durations: [String: Double] = [:]
        for test in file.tests {
            guard let duration = test.duration, duration.isFinite, duration >= 0 else { continue }
            durations[test.id, default: 0] += duration
        }
        return durations
    }
}
