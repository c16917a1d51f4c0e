import Foundation
import XCTest
import TestscopeExecution
@testable import TestscopeReports
@testable import TestscopeTestResults

/// The event stream reader validates before it trusts: bad lines are skipped with one warning that
/// names the file and the first bad line, a file with nothing usable is bad input (65), and seeded
/// mutations of real streams never crash it, never give an impossible time, and stay fast.
final class EventStreamHostileTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("EventStreamCorpus")
    static let seeds = ["parallel.jsonl", "crash.jsonl", "hostile.jsonl"]

    func temporaryFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString).jsonl")
        try text.write(to: url, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testHostileLinesAreSkippedWithOneWarningAndTheGoodOnesStillCount() throws {
        let url = Self.corpus.appendingPathComponent("hostile.jsonl")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let run = try TestResultImporter.combined(logs: [], streams: [url], junit: [], testList: nil)
        // The good test around the junk: its own start and end.
        let test = try XCTUnwrap(run.results.first { $0.name == "blocks200ms()" })
        XCTAssertEqual(test.outcome, .passed)
        let instants = try [2, lines.count - 2].map { index -> Double in
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any])
            return try XCTUnwrap(((object["payload"] as? [String: Any])?["instant"] as? [String: Double])?["absolute"])
        }
        XCTAssertEqual(try XCTUnwrap(test.duration), instants[1] - instants[0], accuracy: 1e-9)
        // A test record whose line is 1e300 is kept, without the impossible location.
        XCTAssertFalse(run.results.contains { $0.location?.line ?? 0 > Int(Int32.max) })
        // One warning, naming the file and the first bad line (line 4: truncated JSON).
        XCTAssertEqual(run.warnings.count, 1, "\(run.warnings)")
        let warning = try XCTUnwrap(run.warnings.first)
        XCTAssertEqual(warning.file, url.path)
        XCTAssertEqual(warning.line, 4)
        XCTAssertTrue(warning.message.hasPrefix("skipped 12 lines that cannot be trusted (the first: not JSON)"), warning.message)
        XCTAssertFalse(warning.description.contains("\n"))
        // Each kind of junk gives its reason.
        var stream = SwiftTestingEventStream()
        for line in lines { stream.consume(line) }
        XCTAssertEqual(stream.skippedCount, 12)
        let reasons = stream.skipped.map(\.reason)
        XCTAssertEqual(reasons, ["not JSON", "not JSON", "not a JSON object", "a test record without a string \"id\" and \"name\"",
                                 "an event record without a \"payload\" object"])
    }

    func testEveryReasonNamesTheProblem() {
        func reason(_ line: String) -> String? {
            if case let .invalid(reason) = EventStreamLine(Substring(line)) { return reason }
            return nil
        }
        let event = #"{"kind":"event","payload":{"instant":{"absolute":A,"since1970":S},"kind":"testEnded","testID":"X"}}"#
        func at(_ a: String, _ s: String) -> String { event.replacingOccurrences(of: "A", with: a).replacingOccurrences(of: "S", with: s) }
        XCTAssertNil(reason(at("12.5", "1795246731.78")))
        XCTAssertEqual(reason(at("-5", "1795246731.78")), "testEnded at an impossible instant (absolute seconds must be 0…1e9)")
        XCTAssertEqual(reason(at("1e300", "1795246731.78")), "testEnded at an impossible instant (absolute seconds must be 0…1e9)")
        XCTAssertEqual(reason(at("12.5", "1e300")), "testEnded at an impossible instant (since1970 must be between 1970 and 2200)")
        XCTAssertEqual(reason(at("12.5", "-3")), "testEnded at an impossible instant (since1970 must be between 1970 and 2200)")
        // NaN is no JSON number: the line is not JSON.
        XCTAssertEqual(reason(at("NaN", "1795246731.78")), "not JSON")
        XCTAssertEqual(reason(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)), "JSON nested more than 32 levels deep")
        // Brackets inside strings are text, not nesting.
        XCTAssertNil(reason(#"{"kind":"event","payload":{"kind":"runStarted","messages":[{"text":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}]}}"#))
        XCTAssertEqual(reason(#"{"kind":"event","payload":{"kind":"issueRecorded","testID":"X"}}"#), "issueRecorded without an \"issue\" object")
        if case .ignored = EventStreamLine(#"{"kind":"somethingNew","payload":{}}"#) {} else { XCTFail("unknown record kinds are ignored, as the ABI asks") }
    }

    func testAHugeLineIsSkippedNotRead() throws {
        let huge = #"{"kind":"event","payload":{"kind":"runStarted","messages":[{"text":""# + String(repeating: "A", count: EventStreamLine.maximumLineBytes) + #""}]}}"#
        var stream = SwiftTestingEventStream()
        stream.consume(huge)
        XCTAssertEqual(stream.skipped.first?.reason, "a line of \(huge.utf8.count) bytes (more than 16 MiB)")
        XCTAssertFalse(stream.runStarted)
    }

    func testAFileWithNothingUsableIsBadInputNamingTheLine() throws {
        let url = try temporaryFile("\n{not json\n[1]\n")
        XCTAssertThrowsError(try TestResultImporter.combined(logs: [], streams: [url], junit: [], testList: nil)) { error in
            XCTAssertEqual(error as? TestResultsError, .notAnEventStream(path: url.path, detail: "line 2: not JSON"))
            XCTAssertEqual((error as? ClassifiedError)?.errorClass, .badInput)
            XCTAssertFalse((error as? LocalizedError)?.errorDescription?.contains("\n") ?? true)
        }
    }

    // MARK: - Seeded mutations

    /// 300 per seed file by default (about 3 s on an idle machine); `TESTSCOPE_MUTATIONS=N` for a longer fuzzing
    /// session, `TESTSCOPE_MUTATION_SEED=S` for other mutations (as the profile readers' MutationTests).
    static let iterations = ProcessInfo.processInfo.environment["TESTSCOPE_MUTATIONS"].flatMap(Int.init) ?? 300
    static let seed = ProcessInfo.processInfo.environment["TESTSCOPE_MUTATION_SEED"].flatMap(UInt64.init) ?? 0x5eed_e7e7

    /// Values a hostile or broken writer might put where a number, a string or an object belongs.
    static let replacements = ["-1", "1e300", "-1e300", "0", "1e-300", "9223372036854775808", "\"x\"", "null", "true", "[]", "{}",
                               "\"\"", String(repeating: "[", count: 40) + String(repeating: "]", count: 40)]

    func mutate(_ lines: [String], _ random: inout SeededGenerator) -> [String] {
        var lines = lines
        guard !lines.isEmpty else { return lines }
        let i = Int.random(in: 0..<lines.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0: lines.remove(at: i)
        case 1: lines.insert(lines[i], at: Int.random(in: 0...lines.count, using: &random))
        case 2: lines.swapAt(i, Int.random(in: 0..<lines.count, using: &random))
        case 3: lines[i] = String(lines[i].prefix(Int.random(in: 0...lines[i].count, using: &random)))
        case 4:
            // A value after a key: `"absolute":12.5` → `"absolute":1e300`.
            let line = lines[i]
            let colons = line.indices.filter { line[$0] == ":" }
            guard let colon = colons.randomElement(using: &random) else { break }
            let rest = line[line.index(after: colon)...]
            let end = rest.firstIndex { $0 == "," || $0 == "}" || $0 == "]" } ?? rest.endIndex
            lines[i] = String(line[...colon]) + Self.replacements.randomElement(using: &random)! + String(line[end...])
        case 5:
            var bytes = Array(lines[i].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            lines[i] = String(decoding: bytes, as: UTF8.self)
        default:
            // Keys renamed: a required field goes missing.
            for key in ["\"testID\"", "\"instant\"", "\"kind\"", "\"payload\"", "\"id\"", "\"issue\""] where Bool.random(using: &random) {
                lines[i] = lines[i].replacingOccurrences(of: key, with: "\"_\(key.dropFirst())")
            }
        }
        return lines
    }

    /// Everything the reader gives must be sane: finite, non-negative times within the stream's span.
    func assertSane(_ stream: SwiftTestingEventStream, _ context: String) {
        var run = TestRunResults(results: stream.results())
        for id in stream.inFlight { run.results.append(stream.interruptedResult(id, outcome: .crashed, crash: nil, duration: nil)) }
        _ = stream.blame(killed: nil, crash: CrashEvidence(frames: ["x"]), orFirst: true)
        for result in run.results {
            if let d = result.duration { XCTAssertTrue(d.isFinite && d >= 0 && d <= EventStreamLine.maximumAbsolute, "\(context): duration \(d)") }
            if let line = result.location?.line { XCTAssertTrue(line >= 0 && line <= Int(Int32.max), "\(context): line \(line)") }
        }
        if let wall = run.wallTime { XCTAssertTrue(wall.isFinite && wall >= 0, "\(context): wall \(wall)") }
    }

    func testSeededMutationsNeverCrashAndGiveOnlySaneTimes() throws {
        let start = Date()
        for (fileIndex, name) in Self.seeds.enumerated() {
            let original = try String(contentsOf: Self.corpus.appendingPathComponent(name), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var random = SeededGenerator(state: Self.seed &+ UInt64(fileIndex))
            var mutated = original
            for iteration in 0..<Self.iterations {
                // Mutations pile up for a while, then start again from the seed.
                mutated = mutate(iteration % 8 == 0 ? original : mutated, &random)
                let began = Date()
                let stream = SwiftTestingEventStream.parse(mutated.joined(separator: "\n"))
                assertSane(stream, "\(name) iteration \(iteration)")
                if iteration % 50 == 0 {
                    // The whole import and the reports, with the seed as a second stream.
                    let urls = [try temporaryFile(mutated.joined(separator: "\n")), try temporaryFile(original.joined(separator: "\n"))]
                    do {
                        let run = try TestResultImporter.combined(logs: [], streams: urls, junit: [], testList: nil)
                        _ = try JUnitReport(strict: false, packageRoot: "/", hostname: "h").renderString(run)
                        _ = try TestResultsJSONReport(packageRoot: "/").renderString(run)
                    } catch is TestResultsError {}
                }
                XCTAssertLessThan(Date().timeIntervalSince(began), 2, "\(name) iteration \(iteration) too slow")
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        print("\(Self.seeds.count * Self.iterations) mutated event streams through the reader in \(String(format: "%.1f", elapsed)) s")
        XCTAssertLessThan(elapsed, 60 * Double(Self.iterations) / 300)
    }
}

/// SplitMix64: deterministic, so a failure names a reproducible seed and iteration.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
