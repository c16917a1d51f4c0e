import Foundation
import TestscopeHistory
@testable import TestscopeKit
import TestscopeTestResults
import TestscopeExecution
import TestscopeTestSupport
import XCTest

/// What `run --history` reads of the earlier runs before the tests run.
final class HistoryRecordingTests: XCTestCase {
    /// One name stored in two Unicode spellings (é composed and decomposed: the stores compare bytes, Swift
    /// compares characters) is two tests in the store and one timeline on the Tests page, not a trap.
    func testTwoStoredSpellingsOfOneNameAreOneTimeline() throws {
        let composed = "M.C/test(\"\u{E9}\")", decomposed = "M.C/test(\"e\u{301}\")"
        XCTAssertEqual(composed, decomposed)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("spellings-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try HistoryStore(url: url, mode: .write)
        for (index, name) in [composed, decomposed].enumerated() {
            let run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: Double(index) * 60),
                                 finishedAt: Date(timeIntervalSince1970: Double(index) * 60 + 1), exitStatus: 0)
            try store.append(HistoryRecord(run: run, executions: [HistoryExecution(test: name, outcome: index == 0 ? "passed" : "failed", duration: 0.1)]))
        }
        let earlier = try store.analysis()
        try store.close()
        XCTAssertEqual(earlier.tests.count, 2, "the store keeps both spellings")

        let timelines = HistoryRecording(url: url, command: "run", startedAt: Date(), earlier: earlier).timelines(current: TestRunResults())
        XCTAssertEqual(timelines.count, 1)
        XCTAssertEqual(timelines[composed]?.map(\.outcome), ["passed", "failed"], "both runs, oldest first")
    }
}

/// `testscope history` on a terminal: every line fits its width; into a file the lines stay whole.
final class HistoryTerminalTests: XCTestCase {
    func testEveryLineFitsTheTerminalAndStaysWholeInAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("width-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try HistoryStore(url: url, mode: .write)
        let test = "LongModuleNameTests.AVeryLongSuiteNameForTheTerminal/testSomethingWithAVeryLongNameThatGoesOn()"
        for index in 0..<6 {
            let run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: Double(index) * 60),
                                 finishedAt: Date(timeIntervalSince1970: Double(index) * 60 + 1), exitStatus: 0)
            try store.append(HistoryRecord(run: run, executions: [HistoryExecution(test: test, outcome: index % 2 == 0 ? "passed" : "failed", duration: 0.1)]))
        }
        try store.close()
        func lines(columns: Int?) throws -> [Substring] {
            let console = CapturedConsole()
            let pipeline = Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, columns: columns, console: console), environment: [:])
            _ = try pipeline.history(HistoryRequest(file: url))
            return console.outputText.split(separator: "\n")
        }
        let screen = try lines(columns: 80)
        XCTAssertEqual(screen.filter { $0.count > 80 }, [])
        XCTAssertTrue(screen.map { $0.trimmingCharacters(in: .whitespaces) }.joined().contains(test), "the name is wrapped, not lost:\n\(screen.joined(separator: "\n"))")
        let file = try lines(columns: nil)
        XCTAssertTrue(file.contains { $0.hasSuffix(" " + test) && $0.count > 80 }, "a row is whole in a file")
    }
}
