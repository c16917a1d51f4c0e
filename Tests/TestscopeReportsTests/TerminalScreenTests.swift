import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
@testable import TestscopeReports
@testable import TestscopeTerminal
import TestscopeRun
@testable import TestscopeTestResults

/// The live view and the final screen: every line fits the width it was given, a path loses its
/// middle, output that is not a terminal has no carriage return and no escape sequence.
final class TerminalScreenTests: XCTestCase {
    static let recorded = ReportGoldenTests.repoRoot.appendingPathComponent("sample-profiles/recorded/Inventory")

    /// The recorded Inventory run's test results (two deliberate failures among them).
    static func inventoryTests() throws -> TestRunResults {
        let list = TestList.parse(try String(contentsOf: recorded.appendingPathComponent("test-list.txt"), encoding: .utf8))
        return try TestResultImporter.combined(logs: [recorded.appendingPathComponent("swift-test.log")],
                                               streams: [recorded.appendingPathComponent("swift-testing-events.jsonl")],
                                               junit: [], testList: list)
    }

    /// The lines of what a terminal shows: split at newlines and carriage returns, escape sequences removed.
    static func screenLines(_ text: String) -> [String] {
        let plain = text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
        return plain.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" }.map(String.init)
    }

    func testMiddleShorteningKeepsBothEndsAndTheWidth() {
        let path = "Sources/InventoryCore/Pricing/Very/Deep/Folder/Structure/DiscountCalculator.swift"
        for width in 1...path.count + 2 {
            let short = ScreenText.middle(path, width: width)
            XCTAssertLessThanOrEqual(short.count, width)
            if width >= path.count { XCTAssertEqual(short, path) } else if width >= 17 {
                XCTAssertTrue(short.contains("…") && short.hasPrefix("Sources/") && short.hasSuffix(".swift"), short)
            }
        }
    }

    /// A failure's message (the recorded log's XCTest line) is wrapped, not cut: every piece fits, the
    /// continuations are indented, and the words joined back are the message.
    func testLongMessagesWrapWithinTheWidthAndLoseNothing() throws {
        let log = try String(contentsOf: Self.recorded.appendingPathComponent("swift-test-parallel.log"), encoding: .utf8)
        let message = try XCTUnwrap(log.split(separator: "\n").first { $0.contains(": error: ") }.map { "    " + $0 })
        for width in [20, 37, 60, 80, 100] {
            let lines = ScreenText.wrap(message, width: width)
            XCTAssertGreaterThan(lines.count, 1, "\(width)")
            for line in lines { XCTAssertLessThanOrEqual(line.count, width, line) }
            for line in lines.dropFirst() { XCTAssertTrue(line.hasPrefix("      "), "indented: \(line)") }
            let rejoined = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined()
            XCTAssertEqual(rejoined.filter { $0 != " " }, message.filter { $0 != " " }, "\(width)")
        }
        XCTAssertEqual(ScreenText.wrap("short", width: 80), ["short"])
    }

    func testTheFileTableFitsEveryWidthAndNeverDropsTheNameOrLines() throws {
        let report = try ReportGoldenTests.report("Inventory")
        let plain = Terminal(useColor: false, showProgress: false, quiet: false, columns: nil, console: CapturedConsole())
        for width in [30, 40, 52, 60, 80, 100, 160] {
            var terminal = plain
            terminal.columns = width
            let lines = ResultScreen(terminal: terminal, packageRoot: "/", files: .all, showMissing: true).coverageTables(report.report)
            XCTAssertFalse(lines.isEmpty)
            for line in lines { XCTAssertLessThanOrEqual(line.count, width, "\(width): \(line)") }
            // Every file has its row, with its line percentage.
            for file in report.files {
                let name = (file.relativePath as NSString).lastPathComponent
                XCTAssertTrue(lines.contains { $0.contains(Format.percent(file.summary.lines)) && ($0.contains(name) || $0.contains("…")) },
                              "\(width): \(file.relativePath)")
            }
        }
        // Wide enough, the full table: every column, no path shortened.
        var wide = plain
        wide.columns = 200
        let full = ResultScreen(terminal: wide, packageRoot: "/", files: .all).coverageTables(report.report)
        XCTAssertFalse(full.contains { $0.contains("…") }, full.joined(separator: "\n"))
        for file in report.files { XCTAssertTrue(full.contains { $0.hasPrefix(file.relativePath + " ") }, file.relativePath) }
    }

    func testTheWorstFilesComeFirstAndOnlyAsManyAsAsked() throws {
        let report = try ReportGoldenTests.report("Inventory")
        let terminal = Terminal(useColor: false, showProgress: false, quiet: false, columns: 100, console: CapturedConsole())
        let lines = ResultScreen(terminal: terminal, packageRoot: "/", files: .worst(2)).coverageTables(report.report)
        let worst = report.files.filter { $0.summary.lines.total > 0 }.sorted { ($0.summary.lines.percent ?? 0) < ($1.summary.lines.percent ?? 0) }
        let fileRows = lines.drop { !$0.hasPrefix("File ") }.dropFirst()
        XCTAssertEqual(fileRows.count, 2, lines.joined(separator: "\n"))
        XCTAssertTrue(fileRows.first?.hasPrefix(worst[0].relativePath) ?? false, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains("2 of \(report.files.count) files") }, lines.joined(separator: "\n"))
    }

    func testTheVerdictAndTheReportsLineFit() throws {
        let report = try ReportGoldenTests.report("Inventory")
        let tests = try Self.inventoryTests()
        XCTAssertTrue(tests.hasFailures, "the recorded run has its deliberate failures")
        for width in [40, 60, 80, 100] {
            let terminal = Terminal(useColor: false, showProgress: false, quiet: false, columns: width, console: CapturedConsole())
            let screen = ResultScreen(terminal: terminal, packageRoot: "/")
            let verdict = screen.verdict(tests: tests, coverage: report.report)
            XCTAssertTrue(verdict[0].hasPrefix("✗ Tests: \(tests.summaryLine)"), verdict[0])
            XCTAssertTrue(verdict[1].hasPrefix("Coverage: lines \(Format.percent(report.totals.lines))"), verdict[1])
            for line in verdict { XCTAssertLessThanOrEqual(line.count, width, line) }
            let written = ["index.html", "tests.html", "coverage.json", "coverage.lcov", "coverage.txt", "junit.xml", "tests.json"].map { "/o/\($0)" }
            let line = try XCTUnwrap(screen.reportsLine(written: written, folder: "/o", testsOnly: false))
            XCTAssertTrue(line.hasPrefix("HTML report: /o/index.html"), line)
            XCTAssertLessThanOrEqual(line.count, width, line)
        }
    }

    /// A long output folder (issue 41: 101 columns at a width of 100): on a terminal the path loses its
    /// middle; off a terminal it stays whole.
    func testTheReportsLineOfALongFolderFitsTheTerminal() throws {
        let folder = "/home/someone/work/a-project-with-a-long-name/build-output/coverage-and-tests/testscope-run-of-today"
        let written = ["index.html", "tests.html", "coverage.json", "junit.xml"].map { "\(folder)/\($0)" }
        for width in [40, 60, 80, 100, 120] {
            let terminal = Terminal(useColor: false, showProgress: false, quiet: false, columns: width, console: CapturedConsole())
            let line = try XCTUnwrap(ResultScreen(terminal: terminal, packageRoot: "/").reportsLine(written: written, folder: folder, testsOnly: false))
            XCTAssertLessThanOrEqual(line.count, width, line)
            XCTAssertTrue(line.hasPrefix("HTML report: /home/"), line)
            if width >= 60 { XCTAssertTrue(line.contains("index.html"), "the file's name is kept: \(line)") }
        }
        let plain = Terminal(useColor: false, showProgress: false, quiet: false, console: CapturedConsole())
        let line = try XCTUnwrap(ResultScreen(terminal: plain, packageRoot: "/").reportsLine(written: written, folder: folder, testsOnly: false))
        XCTAssertTrue(line.hasPrefix("HTML report: \(folder)/index.html"), line)
    }

    func testTheStatusLineNeverReachesTheLastColumn() {
        var status = LiveStatus(phase: .testing)
        (status.done, status.total, status.passed, status.failed, status.skipped) = (120, 400, 117, 2, 1)
        status.running = "InventoryCoreTests.InventoryCoreTests/testAVeryLongTestNameThatGoesOnAndOnAboutDiscounts"
        status.alsoRunning = 3
        (status.elapsed, status.remaining) = (90, 45)
        var building = LiveStatus(phase: .building(done: 42, total: 96, step: "Compiling InventoryCore DiscountCalculatorWithALongName.swift"))
        building.elapsed = 12
        for width in 10...200 {
            for line in [status.line(width: width), building.line(width: width)] {
                XCTAssertLessThan(line.count, max(11, width), "\(width): \(line)")
            }
        }
        XCTAssertEqual(status.line(width: 200),
                       "Testing 120/400 · 117 passed · 2 failed · 1 skipped · 1m30s · ~45s left · InventoryCoreTests/testAVeryLongTestNameThatGoesOnAndOnAboutDiscounts (+3)",
                       "the running test without its module")
        XCTAssertEqual(status.heartbeat, "testscope: 120/400 tests, 2 failed, 1m30s, about 45s left")
        // A test running long is named with its time, before the estimate and the elapsed time.
        status.runningFor = 32
        for width in 10...200 { XCTAssertLessThan(status.line(width: width).count, max(11, width), "\(width)") }
        XCTAssertEqual(status.line(width: 80), "Testing 120/400 · 117 passed · 2 failed · InventoryCore…outDiscounts (32s) (+3)")
        XCTAssertTrue(status.heartbeat.hasSuffix(", InventoryCoreTests.InventoryCoreTests/testAVeryLongTestNameThatGoesOnAndOnAboutDiscounts running for 32s"),
                      status.heartbeat)
    }

    /// One unit (issue 41: "Testing 2442/2696 · 2588 passed"): a parameterized test's cases are results as the
    /// final screen counts them; on every status line passed + failed + skipped = done ≤ total, and the
    /// last one says N/N with N the run's results.
    func testTheStatusLineCountsEachCaseAsAResult() throws {
        let recorded = ReportGoldenTests.repoRoot.appendingPathComponent("sample-profiles/recorded/Shapes")
        let list = TestList.parse(try String(contentsOf: recorded.appendingPathComponent("test-list.txt"), encoding: .utf8))
        let tests = try TestResultImporter.combined(logs: [recorded.appendingPathComponent("swift-test.log")],
                                                    streams: [recorded.appendingPathComponent("swift-testing-events.jsonl")],
                                                    junit: [], testList: list)
        XCTAssertGreaterThan(tests.results.count, Set(tests.results.map(\.id)).count, "the recording has a parameterized test's cases")
        let console = CapturedConsole()
        let view = LiveView(terminal: Terminal(useColor: false, showProgress: true, quiet: false, columns: 200, console: console), packageRoot: "/")
        view.testsSelected(list.xctest + list.swiftTesting)
        for result in tests.results {
            view.test(.started(result.id))
            view.test(.finished(result))
            view.print(["after \(result.id)"])
        }
        let pattern = try NSRegularExpression(pattern: #"^Testing (\d+)/(\d+) · (\d+) passed · (\d+) failed(?: · (\d+) skipped)?"#)
        var last: [Int] = []
        for line in Self.screenLines(console.diagnosticsText) {
            guard let match = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else { continue }
            let n = (1...5).map { Range(match.range(at: $0), in: line).flatMap { Int(line[$0]) } ?? 0 }
            XCTAssertEqual(n[2] + n[3] + n[4], n[0], "passed + failed + skipped = done: \(line)")
            XCTAssertLessThanOrEqual(n[0], n[1], "done ≤ total: \(line)")
            last = n
        }
        XCTAssertEqual(last.prefix(2), [tests.results.count, tests.results.count], "the last status line counts every result")
    }

    func testTheEstimateWeighsTestsByTheirEarlierTimes() {
        XCTAssertNil(LiveStatus.estimate(elapsed: 5, workDone: 0, work: 0), "no earlier run: no estimate")
        XCTAssertEqual(LiveStatus.estimate(elapsed: 0.5, workDone: 1, work: 100), 99, "before this run's pace: the earlier run's times")
        XCTAssertEqual(LiveStatus.estimate(elapsed: 10, workDone: 20, work: 40), 10)
        // Many short tests done, the long ones left: the count of tests would say 10 s, their earlier times 90 s.
        XCTAssertEqual(LiveStatus.estimate(elapsed: 10, workDone: 10, work: 100), 90)
        // A 7 s test (by the earlier run) running for 3 s after the short ones: about 4 s left.
        XCTAssertEqual(LiveStatus.estimate(elapsed: 3, workDone: 0.02, work: 7.02, running: [(ran: 3, earlier: 7)]) ?? 0, 4, accuracy: 0.1)
        XCTAssertEqual(LiveStatus.estimate(elapsed: 10, workDone: 20, work: 40, running: [(ran: 1, earlier: 31)]), 30, "what a running test still needs is a floor")
        XCTAssertNil(LiveStatus.estimate(elapsed: 10, workDone: 40, work: 40))
        XCTAssertNil(LiveStatus.estimate(elapsed: 10, workDone: 10, work: 12, running: [(ran: 5, earlier: 2)]), "a test past its earlier time, nothing else left: no guess")
    }

    /// Lines SwiftPM 6.3 printed building a fixture: progress, a compiler warning with its source lines, noise.
    func testBuildLinesAreSortedIntoProgressDiagnosticsAndNoise() {
        XCTAssertEqual(BuildLine.classify("[14/28] Compiling InventoryReport Render.swift", afterDiagnostic: false),
                       .progress(done: 14, total: 28, step: "Compiling InventoryReport Render.swift"))
        XCTAssertEqual(BuildLine.classify("Building for debugging...", afterDiagnostic: false), .noise)
        XCTAssertEqual(BuildLine.classify("Build complete! (12.31s)", afterDiagnostic: false), .noise)
        // `swift build` of a one-file package with an unused variable (Swift 6.3), line for line.
        let printed = """
            [4/4] Compiling W W.swift
            /tmp/warnpkg/Sources/W/W.swift:2:9: warning: initialization of variable 'unused' was never used; consider replacing with assignment to '_' or removing it [#no-usage]
            1 | public func f() -> Int {
            2 |     var unused = 1
              |         `- warning: initialization of variable 'unused' was never used; consider replacing with assignment to '_' or removing it [#no-usage]
            3 |     return 2
            4 | }
            Build complete! (11.47s)
            """.split(separator: "\n").map(String.init)
        var kept: [String] = [], after = false
        for line in printed {
            let kind = BuildLine.classify(line, afterDiagnostic: after)
            if case let .diagnostic(text, _) = kind { kept.append(text); after = true } else { after = false }
        }
        XCTAssertEqual(kept, Array(printed[1...6]))
        XCTAssertEqual(BuildLine.classify(printed[2], afterDiagnostic: false), .noise, "a quoted source line only after a diagnostic")
        XCTAssertEqual(BuildLine.classify("error: fatalError", afterDiagnostic: false), .diagnostic("error: fatalError", isError: true))
        // A 10 MB line is looked at by its start only.
        let huge = String(repeating: "x", count: 10 << 20) + ": error: late"
        XCTAssertEqual(BuildLine.classify(huge, afterDiagnostic: false), .noise)
    }

    /// The Warnings fixture's recorded fresh build (issue 41: GRDB's 316 warnings, 178 with one message,
    /// scrolled ~1,890 lines by): the first few warnings in full, then each message once with its count
    /// and the log that has them all; on a terminal, every line within the width.
    func testAFloodOfBuildWarningsIsCountedByMessage() throws {
        let build = try String(contentsOf: ReportGoldenTests.repoRoot.appendingPathComponent("sample-profiles/recorded/Warnings/build.log"), encoding: .utf8)
        let lines = build.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let warnings = lines.filter { $0.contains(": warning: ") }
        let messages = Dictionary(grouping: warnings) { $0.components(separatedBy: ": warning: ")[1] }
        let top = try XCTUnwrap(messages.max { $0.value.count < $1.value.count })
        XCTAssertGreaterThan(top.value.count, 100, "the recording repeats one message")
        let root = String(try XCTUnwrap(warnings.first?.components(separatedBy: "/Sources/").first))
        // `--quiet`: errors and failures only, so not the summary either.
        let quiet = CapturedConsole()
        let quietView = LiveView(terminal: Terminal(useColor: false, showProgress: false, quiet: true, console: quiet), packageRoot: root, buildLog: "swift-test.log")
        for line in lines { quietView.buildLine(line) }
        quietView.testsSelected([])
        quietView.finish()
        XCTAssertEqual(quiet.diagnosticsText, "", "--quiet prints no warning")
        for columns in [nil, 100] {
            let console = CapturedConsole()
            let terminal = Terminal(useColor: false, showProgress: columns != nil, quiet: false, columns: columns, console: console)
            let view = LiveView(terminal: terminal, packageRoot: root, buildLog: ".testscope/swift-test.log")
            for line in lines { view.buildLine(line) }
            view.testsSelected([])
            view.finish()
            let screen = Self.screenLines(console.diagnosticsText).filter { !$0.isEmpty && !$0.hasPrefix("Building") && !$0.hasPrefix("Testing") }
            let inFull = screen.filter { $0.contains(": warning:") }
            XCTAssertEqual(inFull.count, min(messages.count, 5), "the first few, each message once:\n\(screen.joined(separator: "\n"))")
            XCTAssertLessThan(screen.count, 60, "not the build's \(lines.count) lines:\n\(screen.joined(separator: "\n"))")
            let summary = "testscope: the build printed \(warnings.count) warnings (\(messages.count) different messages, \(inFull.count) shown above):"
            XCTAssertTrue(screen.contains(summary), screen.joined(separator: "\n"))
            XCTAssertEqual(screen.last, "  every one of them is in .testscope/swift-test.log")
            if let columns {
                for line in screen { XCTAssertLessThanOrEqual(line.count, columns, line) }
                XCTAssertTrue(screen.contains { $0.hasPrefix("  \(top.value.count)× \(top.key.prefix(40))") }, screen.joined(separator: "\n"))
            } else {
                XCTAssertEqual(Set(inFull.map { $0.components(separatedBy: ": warning: ")[1] }).count, inFull.count)
                // Every message once, with its count, the most frequent first.
                let counted = screen.drop { $0 != summary }.dropFirst().dropLast()
                XCTAssertEqual(counted.count, messages.count, screen.joined(separator: "\n"))
                XCTAssertTrue(counted.first?.hasPrefix("  \(top.value.count)× \(top.key) (Sources/") ?? false, counted.first ?? "")
                for (message, all) in messages {
                    XCTAssertTrue(counted.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(all.count)× \(message)") }, message)
                }
            }
        }
    }

    func testPlainOutputHasFailuresAndHeartbeatsButNoCarriageReturnOrEscape() throws {
        let console = CapturedConsole()
        let terminal = Terminal(useColor: true, showProgress: false, quiet: false, console: console)
        let view = LiveView(terminal: terminal, packageRoot: "/work/Inventory", heartbeat: 0.2)
        XCTAssertEqual(view.mode, .plain)
        view.start()
        view.buildLine("[1/3] Compiling InventoryCore Item.swift")
        view.buildLine("/work/Inventory/Sources/InventoryCore/Item.swift:2:9: warning: variable 'x' was never used")
        view.buildLine("[2/3] Compiling InventoryCore Bin.swift")
        let tests = try Self.inventoryTests()
        view.testsSelected(tests.results.map(\.id))
        for result in tests.results {
            view.test(.started(result.id))
            view.test(.finished(result))
        }
        Thread.sleep(forTimeInterval: 1.3)
        view.finish()
        let text = console.diagnosticsText
        XCTAssertFalse(text.contains("\r"), text)
        XCTAssertFalse(text.contains("\u{1B}"), text)
        XCTAssertTrue(text.contains("warning: variable 'x' was never used"), text)
        XCTAssertFalse(text.contains("Compiling"), text)
        for failed in tests.results.filter(\.outcome.isFailure) {
            XCTAssertTrue(text.contains("FAILED \(failed.id)"), failed.id)
            if let location = failed.primaryLocation {
                XCTAssertTrue(text.contains("\((location.file as NSString).lastPathComponent):\(location.line): "), text)
            }
        }
        let failed = tests.results.filter(\.outcome.isFailure).count
        XCTAssertTrue(text.contains("testscope: \(tests.results.count)/\(tests.results.count) tests, \(failed) failed, "), text)
    }

    func testInteractiveOutputRedrawsOneStatusLineWithinTheWidth() throws {
        let console = CapturedConsole()
        let terminal = Terminal(useColor: true, showProgress: true, quiet: false, columns: 60, console: console)
        let view = LiveView(terminal: terminal, packageRoot: "/work/Inventory")
        XCTAssertEqual(view.mode, .interactive)
        view.start()
        let tests = try Self.inventoryTests()
        view.testsSelected(tests.results.map(\.id))
        for result in tests.results {
            view.test(.started(result.id))
            Thread.sleep(forTimeInterval: 0.02)
            view.test(.finished(result))
        }
        view.finish()
        let text = console.diagnosticsText
        XCTAssertTrue(text.contains("\r\u{1B}[K"), "the status line is redrawn in place")
        XCTAssertTrue(text.hasSuffix("\r\u{1B}[K"), "finish clears it")
        // Redrawn at most 10 times a second (plus once after each failure printed above it).
        let draws = text.components(separatedBy: "Testing ").count - 1
        XCTAssertGreaterThan(draws, 0)
        XCTAssertLessThanOrEqual(draws, Int(Double(tests.results.count) * 0.02 * 10) + 2 + tests.results.filter(\.outcome.isFailure).count + 1, text)
        for line in Self.screenLines(text) where line.hasPrefix("Testing ") { XCTAssertLessThan(line.count, 60, line) }
        XCTAssertTrue(text.contains("FAILED"), text)
    }

    func testQuietShowsFailuresAndErrorsOnly() throws {
        let console = CapturedConsole()
        let view = LiveView(terminal: Terminal(useColor: false, showProgress: false, quiet: true, console: console), packageRoot: "/")
        XCTAssertEqual(view.mode, .quiet)
        view.start()
        view.buildLine("/p/W.swift:2:9: warning: variable 'x' was never used")
        view.buildLine("/p/W.swift:3:1: error: cannot find 'y' in scope")
        let tests = try Self.inventoryTests()
        for result in tests.results { view.test(.finished(result)) }
        view.finish()
        let lines = console.diagnosticsText.split(separator: "\n")
        XCTAssertFalse(lines.contains { $0.contains("warning:") }, console.diagnosticsText)
        XCTAssertTrue(lines.contains { $0.contains("error: cannot find 'y'") }, console.diagnosticsText)
        XCTAssertEqual(lines.filter { $0.hasPrefix("FAILED ") }.count, tests.results.filter(\.outcome.isFailure).count, console.diagnosticsText)
    }

    /// `flaky`'s final screen shows a proposed fix (what, where, verified or not) and its diff, each line
    /// fitted to the width; only the reproduction command stays whole (it is meant to be copied).
    func testTheFlakyScreensFixLinesFitTheWidth() {
        let victim = "FlakyCausesTests.FlagTests/testA_menuWithoutLabs"
        var finding = TestFinding(id: victim, framework: .xctest, classification: .odVictim, method: .inProcessOrder, verdicts: [.pass, .fail])
        finding.polluterGroups = [["FlakyCausesTests.FlagTests/testB_enableBeta"]]
        finding.failingOrder = ["FlakyCausesTests.FlagTests/testB_enableBeta", victim]
        finding.fix = ProposedFix(source: .cleaner, file: "Tests/FlakyCausesTests/OrderDependentTests.swift",
                                  diff: "--- a/Tests/FlakyCausesTests/OrderDependentTests.swift\n+++ b/Tests/FlakyCausesTests/OrderDependentTests.swift\n"
                                      + "@@ -19,7 +19,10 @@\n-    func testA_menuWithoutLabs() { XCTAssertEqual(menuItems(), [\"Home\"]) }\n",
                                  verification: .verified(runs: 3))
        let report = FlakyReport(seed: 1, orders: [], executions: [], findings: [finding], jobs: 1, packageRoot: "/p", binary: "/p/b",
                                 swiftTestingMethod: .inProcessOrder, startedAt: Date(),
                                 reproduction: Reproduction(testscopePrefix: "testscope flaky", binaryPath: "/p/b"))
        for width in [40, 80, 200] {
            let terminal = Terminal(useColor: false, showProgress: false, quiet: false, columns: width, console: CapturedConsole())
            let lines = FlakyScreen(terminal: terminal).findings(report)
            XCTAssertTrue(lines.contains { $0.hasPrefix("    fix: cleaner's statements") }, "\(lines)")
            XCTAssertEqual(lines.filter { $0.hasPrefix("      ") }.count, 4, "the diff's lines: \(lines)")
            for line in lines where !line.hasPrefix("    $ ") { XCTAssertLessThanOrEqual(ScreenText.width(line), width, line) }
            if width == 200 {
                XCTAssertTrue(lines.contains("    fix: cleaner's statements at the start of testA_menuWithoutLabs — verified (3 of 3 passed)"), "\(lines)")
            }
        }
    }
}
