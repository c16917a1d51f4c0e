import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeKit
import TestscopeReports
import XCTest

/// `flaky`'s shared-state search on the FlakyCauses corpus (sample-profiles/packages/FlakyCauses): a real
/// detection of its order-dependent tests, checked against `truth.json` — the right item among the first
/// three for at least 90 % of the pairs inside the process, and "outside the process" with no item for the others.
final class SharedStateTests: XCTestCase {
    static let corpus = FlakyFixture.repoRoot.appendingPathComponent("sample-profiles/packages/FlakyCauses")

    struct Truth: Decodable {
        struct Pair: Decodable {
            var kind: String
            var test: String
            var culprit: String
            var cleaner: String?
            var state: [String]
            var outsideProcess: Bool
        }
        var pairs: [Pair]
    }

    /// A name truth.json accepts: the same, or the same after a kind's words (`environment variable X`).
    static func names(_ item: SharedStateItem, _ state: [String]) -> Bool {
        state.contains { item.name == $0 || item.name.hasSuffix(" " + $0) }
    }

    func testTheCorpusPairsNameTheirStateInTheTopThree() throws {
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: Self.corpus.appendingPathComponent("truth.json")))
        // Only the classes of the order-dependent pairs: the corpus's NOD tests flake on purpose.
        let classes = Set(truth.pairs.flatMap { [$0.test, $0.culprit] + ($0.cleaner.map { [$0] } ?? []) }.map { id in
            String(id.split(separator: "/")[0].split(separator: ".").last!)
        })
        let output = try FlakyFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let (pipeline, console) = FlakyFixture.capturedPipeline(quiet: true)
        var request = FlakyRequest(packageRoot: Self.corpus, settings: ReportSettings(formats: [.json], output: output))
        request.selection.filters = ["^FlakyCausesTests\\.(" + classes.sorted().joined(separator: "|") + ")/"]
        (request.seed, request.runs, request.jobs) = (1, 4, 2)
        let findings = try XCTUnwrap(try pipeline.flaky(request).flaky?.findings, console.diagnosticsText)

        var table = ["pair | found | outside | items (best first)"]
        var inside = 0, right = 0
        for pair in truth.pairs {
            let finding = findings.first { $0.id == pair.test }
            let state = finding?.sharedState
            let names = state.map { ($0.items.isEmpty ? $0.outsideEvidence : $0.items).map(\.name) } ?? []
            table.append("\(pair.test) | \(finding?.classification.rawValue ?? "not found") | \(state?.outsideProcess ?? false) | "
                + (names.isEmpty ? state?.note ?? "-" : names.joined(separator: ", ")))
            XCTAssertEqual(finding?.classification.rawValue, pair.kind, pair.test)
            XCTAssertEqual(finding.map { $0.polluters + $0.setters }, [pair.culprit], pair.test)
            if pair.outsideProcess {
                XCTAssertEqual(state?.outsideProcess, true, pair.test)
                XCTAssertEqual(state?.items.map(\.name), [], "no in-process item for \(pair.test)")
                XCTAssertFalse(state?.outsideEvidence.isEmpty ?? true, "the file is the evidence for \(pair.test)")
            } else {
                inside += 1
                let items = state?.items ?? []
                XCTAssertLessThanOrEqual(items.count, 3)
                if items.prefix(3).contains(where: { Self.names($0, pair.state) }) { right += 1 }
                for item in items { XCTAssertFalse(item.writeSites.isEmpty || item.readSites.isEmpty, "\(item.name): evidence on both sides") }
            }
        }
        print(table.joined(separator: "\n"))
        print("right item in the top 3: \(right) of \(inside) pairs inside the process")
        XCTAssertGreaterThan(inside, 0)
        XCTAssertGreaterThanOrEqual(Double(right), 0.9 * Double(inside), table.joined(separator: "\n"))

        // flaky.json carries it: the first pair's items by name.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("flaky.json"))) as? [String: Any]
        let tests = try XCTUnwrap(json?["tests"] as? [[String: Any]])
        let first = try XCTUnwrap(tests.first { $0["id"] as? String == truth.pairs[0].test })
        let items = try XCTUnwrap((first["sharedState"] as? [String: Any])?["items"] as? [[String: Any]])
        XCTAssertTrue(items.contains { truth.pairs[0].state.contains($0["name"] as? String ?? "") }, "\(items)")
    }

    /// The Flaky fixture's pairs (its README): a victim that crashes after its polluter (its counts die with
    /// the process: what it reads is taken from a run of it alone), two polluter groups, a brittle test, a
    /// Swift Testing pair — each names the static its README plants.
    func testTheFlakyFixturesPairsNameThePlantedStatics() throws {
        let output = try FlakyFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let (pipeline, console) = FlakyFixture.capturedPipeline(quiet: true)
        var request = FlakyRequest(packageRoot: FlakyFixture.package, settings: ReportSettings(formats: [.json], output: output))
        request.selection.filters = ["^FlakyTests\\.(RegistryTests|ShutdownTests|CounterSuite|SessionTests|AuthTests|FormatterTests|LocaleTests|TSVExportTests)/"]
        (request.seed, request.runs, request.jobs) = (1, 4, 2)
        let findings = try XCTUnwrap(try pipeline.flaky(request).flaky?.findings, console.diagnosticsText)
        let expected = [FlakyFixture.crashVictim: "Registry.handlers", FlakyFixture.formatterVictim: "Settings.separator",
                        FlakyFixture.brittle: "Session.currentUser", FlakyFixture.counterVictim: "Counter.value"]
        for (test, name) in expected {
            let finding = try XCTUnwrap(findings.first { $0.id == test }, test)
            XCTAssertEqual(finding.classification, FlakyFixture.expected[test], test)
            XCTAssertEqual(finding.sharedState?.items.first?.name, name, "\(test): \(String(describing: finding.sharedState))")
        }
        let crash = try XCTUnwrap(findings.first { $0.id == FlakyFixture.crashVictim }?.sharedState?.items.first)
        XCTAssertEqual(crash.readSites, [SourceSite(file: "Tests/FlakyTests/RegistryTests.swift", line: 8)], "read in the run of the victim alone")
        XCTAssertEqual(crash.resetStatement, #"Registry.handlers = ["default": { $0 * 2 }]"#)
    }
}
