import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeReports
import TestscopeTerminal
import XCTest

/// A finding's shared state in flaky.json, flaky.txt, the Flaky page (escaped) and the final screen (fitted).
final class SharedStateReportTests: XCTestCase {
    static let victim = "M.Flags/testA_menu", polluter = "M.Flags/testB_enable"
    static let fileVictim = "M.Import/testUnlocked", fileWriter = "M.Export/testLock"

    func report() -> FlakyReport {
        var inside = TestFinding(id: Self.victim, framework: .xctest, classification: .odVictim, method: .inProcessOrder, verdicts: [.pass, .fail])
        inside.polluterGroups = [[Self.polluter]]
        inside.sharedState = SharedStateFinding(items: [
            SharedStateItem(name: "Flags.beta<script>", kind: .staticProperty,
                            writeSites: [SourceSite(file: "Tests/MTests/FlagTests.swift", line: 24), SourceSite(file: "Tests/MTests/FlagTests.swift", line: 30)],
                            readSites: [SourceSite(file: "Sources/M/Flags.swift", line: 20)], resetStatement: "Flags.beta = \"<off>\""),
            SharedStateItem(name: "retryLimit", kind: .global, writeSites: [SourceSite(file: "Sources/M/Retry.swift", line: 3)],
                            readSites: [SourceSite(file: "Sources/M/Retry.swift", line: 5)]),
        ])
        var outside = TestFinding(id: Self.fileVictim, framework: .xctest, classification: .odVictim, method: .inProcessOrder, verdicts: [.pass, .fail])
        outside.polluterGroups = [[Self.fileWriter]]
        outside.sharedState = SharedStateFinding(items: [], outsideProcess: true, outsideEvidence: [
            SharedStateItem(name: "file Lock.path", kind: .file, writeSites: [SourceSite(file: "Sources/M/Lock.swift", line: 7)],
                            readSites: [SourceSite(file: "Sources/M/Lock.swift", line: 9)]),
        ])
        var none = TestFinding(id: "M.Other/testB", framework: .xctest, classification: .odBrittle, method: .inProcessOrder, verdicts: [.pass, .fail])
        none.setterGroups = [["M.Other/testA"]]
        none.sharedState = SharedStateFinding(items: [], note: "no state written by M.Other/testA and read by M.Other/testB was found in the package's sources")
        return FlakyReport(seed: 1, orders: [], executions: [], findings: [inside, outside, none], jobs: 1, packageRoot: "/pkg/M",
                           binary: "/pkg/M/.build/x.xctest", swiftTestingMethod: .inProcessOrder, startedAt: Date(timeIntervalSince1970: 0),
                           reproduction: Reproduction(testscopePrefix: "testscope flaky", binaryPath: "x.xctest"))
    }

    func testFlakyJSONCarriesItemsSitesAndTheOutsideVerdict() throws {
        let text = try FlakyJSONReport(packageRoot: "/pkg/M").renderString(report())
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        let inside = try XCTUnwrap(tests[0]["sharedState"] as? [String: Any])
        let items = try XCTUnwrap(inside["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["name"] as? String }, ["Flags.beta<script>", "retryLimit"])
        XCTAssertEqual(items[0]["kind"] as? String, "static")
        XCTAssertEqual(items[0]["resetStatement"] as? String, "Flags.beta = \"<off>\"")
        XCTAssertTrue(items[1]["resetStatement"] is NSNull)
        let writes = try XCTUnwrap(items[0]["writeSites"] as? [[String: Any]])
        XCTAssertEqual(writes.map { "\($0["file"] as! String):\($0["line"] as! Int)" }, ["Tests/MTests/FlagTests.swift:24", "Tests/MTests/FlagTests.swift:30"])
        XCTAssertEqual(inside["outsideProcess"] as? Bool, false)
        let outside = try XCTUnwrap(tests[1]["sharedState"] as? [String: Any])
        XCTAssertEqual(outside["outsideProcess"] as? Bool, true)
        XCTAssertEqual((outside["items"] as? [Any])?.count, 0)
        XCTAssertEqual(((outside["outsideEvidence"] as? [[String: Any]])?.first?["name"]) as? String, "file Lock.path")
        XCTAssertEqual((tests[2]["sharedState"] as? [String: Any])?["note"] as? String,
                       "no state written by M.Other/testA and read by M.Other/testB was found in the package's sources")
    }

    func testTextPageAndScreen() throws {
        let report = report()
        let text = try FlakyTableReport(terminal: Terminal(useColor: false, showProgress: false, quiet: false)).renderString(report)
        XCTAssertTrue(text.contains("\(Self.victim): shared state: Flags.beta<script> (written Tests/MTests/FlagTests.swift:24 +1, "
            + "read Sources/M/Flags.swift:20); retryLimit (written Sources/M/Retry.swift:3, read Sources/M/Retry.swift:5)"), text)
        XCTAssertTrue(text.contains("\(Self.fileVictim): shared state: outside the process: file Lock.path (written Sources/M/Lock.swift:7, read Sources/M/Lock.swift:9)"), text)

        let html = try FlakyHTMLPage(templates: try HTMLTemplates.builtIn(), navigation: [.flaky], generatorVersion: "test", packageRoot: "/pkg/M").renderString(report)
        XCTAssertFalse(html.contains("Flags.beta<script>"), "an item's name is text, never markup")
        XCTAssertTrue(html.contains("<code>Flags.beta&lt;script&gt;</code>"), html)
        XCTAssertTrue(html.contains("reset: <code>Flags.beta = &quot;&lt;off&gt;&quot;</code>"))
        XCTAssertTrue(html.contains("<code>Tests/MTests/FlagTests.swift:30</code>"))
        XCTAssertTrue(html.contains("Shared state: outside the process"))
        XCTAssertTrue(html.contains("<code>file Lock.path</code>"))
        XCTAssertTrue(html.contains("no state written by M.Other/testA and read by M.Other/testB was found in the package&#39;s sources")
            || html.contains("no state written by M.Other/testA and read by M.Other/testB was found in the package&#x27;s sources"), html)

        for width in [40, 60, 100] {
            let screen = FlakyScreen(terminal: Terminal(useColor: false, showProgress: false, quiet: false, columns: width)).findings(report)
            let state = screen.filter { $0.contains("shared state") }
            XCTAssertEqual(state.count, 3, "\(screen)")
            for line in state { XCTAssertLessThanOrEqual(line.count, width, line) }
        }
        let wide = FlakyScreen(terminal: Terminal(useColor: false, showProgress: false, quiet: false, columns: 200)).findings(report)
        XCTAssertTrue(wide.contains("    shared state: Flags.beta<script> (written FlagTests.swift:24 +1, read Flags.swift:20) (+1 more)"), "\(wide)")
    }
}
