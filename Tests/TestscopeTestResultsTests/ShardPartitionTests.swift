import Foundation
import TestscopeTestResults
import XCTest

/// `--shard K/N`: the parsing of K/N, and the partition (every test exactly once, deterministic,
/// balanced by count or by the durations of a recorded tests.json).
final class ShardPartitionTests: XCTestCase {
    /// The recorded Crashy run's test list: XCTest and Swift Testing ids.
    private func recordedList() throws -> TestList {
        TestList.parse(try RecordedLogs.text("Crashy", "test-list.txt"))
    }

    func testParsesKOfNAndRejectsEverythingElse() {
        XCTAssertEqual(TestShard(parsing: "2/3"), TestShard(index: 2, count: 3))
        XCTAssertEqual(TestShard(parsing: "1/1")?.description, "1/1")
        for bad in ["3/2", "0/2", "a/b", "2", "1/0", "-1/2", "1/2/3", " 1/2", "1/ 2", "", "/", "1/", "+1/2", "١/٢"] {
            XCTAssertNil(TestShard(parsing: bad), bad)
        }
    }

    func testEveryTestLandsInExactlyOneShardWhateverTheOrder() throws {
        let list = try recordedList()
        let ids = list.xctest + list.swiftTesting
        XCTAssertTrue(!list.xctest.isEmpty && !list.swiftTesting.isEmpty, "the recorded list has both libraries")
        for count in 1...(ids.count + 2) {
            let shards = ShardPartition.shards(of: ids, count: count)
            XCTAssertEqual(shards.count, count)
            XCTAssertEqual(shards.flatMap { $0 }.sorted(), ids.sorted(), "\(count) shards hold every test once")
            let sizes = shards.map(\.count)
            XCTAssertLessThanOrEqual(sizes.max()! - sizes.min()!, 1, "\(count) shards: sizes \(sizes)")
            XCTAssertEqual(ShardPartition.shards(of: ids.reversed(), count: count), shards, "the listing order does not matter")
            XCTAssertEqual(ShardPartition.shards(of: ids.shuffled(), count: count), shards)
            // Through the list: each shard keeps its tests in the list's order, per library.
            var union = TestList()
            for k in 1...count {
                let part = ShardPartition.tests(of: list, shard: TestShard(index: k, count: count)!)
                XCTAssertEqual(Set(part.xctest + part.swiftTesting), Set(shards[k - 1]))
                XCTAssertEqual(part.xctest, list.xctest.filter(part.xctest.contains))
                union.xctest += part.xctest
                union.swiftTesting += part.swiftTesting
            }
            XCTAssertEqual(union.xctest.sorted(), list.xctest.sorted())
            XCTAssertEqual(union.swiftTesting.sorted(), list.swiftTesting.sorted())
        }
    }

    func testTheHashMixesLibrariesAndSuites() throws {
        let list = try recordedList()
        let shards = ShardPartition.shards(of: list.xctest + list.swiftTesting, count: 2)
        // Not the listing cut in half: both shards get tests of both libraries.
        for shard in shards {
            XCTAssertTrue(shard.contains(where: list.xctest.contains), "\(shard)")
            XCTAssertTrue(shard.contains(where: list.swiftTesting.contains), "\(shard)")
        }
    }

    func testTimingsFromARecordedTestsJSON() throws {
        let durations = try ShardTimings.read(RecordedLogs.url("Crashy", "run-crash/tests.json"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: RecordedLogs.url("Crashy", "run-crash/tests.json"))) as? [String: Any]
        let tests = try XCTUnwrap(json?["tests"] as? [[String: Any]])
        // A parameterized test's cases are summed: the shard takes the whole test.
        let doubles = tests.filter { ($0["id"] as? String) == "CrashyTests.CrashySuite/doubles(value:)" }.compactMap { $0["duration"] as? Double }
        XCTAssertGreaterThan(doubles.count, 1)
        XCTAssertEqual(try XCTUnwrap(durations["CrashyTests.CrashySuite/doubles(value:)"]), doubles.reduce(0, +), accuracy: 1e-9)
        XCTAssertEqual(Set(durations.keys), Set(tests.compactMap { $0["id"] as? String }))

        let list = try recordedList()
        let ids = list.xctest + list.swiftTesting
        let shards = ShardPartition.shards(of: ids, count: 2, durations: durations)
        XCTAssertEqual(shards.flatMap { $0 }.sorted(), ids.sorted())
        XCTAssertEqual(ShardPartition.shards(of: ids.shuffled(), count: 2, durations: durations), shards, "deterministic")
        // The two slowest tests (0.111 s each in the recording) go to different shards.
        let slowest = durations.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(2).map(\.key)
        XCTAssertEqual(shards.filter { $0.contains(slowest[0]) || $0.contains(slowest[1]) }.count, 2, "\(slowest) in \(shards)")
        // Greedy longest-first stays within the longest test of the ideal split.
        let loads = shards.map { $0.reduce(0) { $0 + (durations[$1] ?? 0) } }
        let total = loads.reduce(0, +)
        XCTAssertLessThanOrEqual(loads.max()!, total / 2 + durations.values.max()! + 1e-9, "\(loads)")
    }

    func testDurationsBalanceBetterThanCountsAndUnknownTestsWeighTheMedian() {
        // One long test and ten short ones: by count a shard takes the long one and five more.
        let ids = ["M.Slow/testLong"] + (0..<10).map { "M.Fast/test\($0)" }
        var durations = Dictionary(uniqueKeysWithValues: ids.map { ($0, $0.hasSuffix("Long") ? 10.0 : 1.0) })
        let timed = ShardPartition.shards(of: ids, count: 2, durations: durations)
        XCTAssertEqual(timed.first { $0.contains("M.Slow/testLong") }, ["M.Slow/testLong"], "the long test alone balances 10 against 10")
        // A test the timings do not know counts the median (1.0 here): it joins the short ones' shard.
        durations["M.Fast/test9"] = nil
        let withUnknown = ShardPartition.shards(of: ids, count: 2, durations: durations)
        XCTAssertEqual(withUnknown.first { $0.contains("M.Slow/testLong") }, ["M.Slow/testLong"])
        XCTAssertTrue(withUnknown.contains { $0.contains("M.Fast/test9") && $0.count == 10 })
        // Equal durations: ties broken by id, the same cut every time.
        let equal = Dictionary(uniqueKeysWithValues: ids.map { ($0, 1.0) })
        XCTAssertEqual(ShardPartition.shards(of: ids, count: 3, durations: equal), ShardPartition.shards(of: ids.reversed(), count: 3, durations: equal))
    }

    func testATimingsFileThatIsNotTestsJSONIsOneError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shard-timings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let coverage = folder.appendingPathComponent("coverage.json")
        try Data(#"{"files": []}"#.utf8).write(to: coverage)
        XCTAssertThrowsError(try ShardTimings.read(coverage)) { error in
            XCTAssertEqual(error as? TestResultsError, .notTestsJSON(path: coverage.path))
        }
        XCTAssertThrowsError(try ShardTimings.read(folder.appendingPathComponent("missing.json"))) { error in
            guard case .unreadable? = error as? TestResultsError else { return XCTFail("\(error)") }
        }
    }
}
