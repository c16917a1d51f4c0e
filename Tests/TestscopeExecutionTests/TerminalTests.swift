import Foundation
import TestscopeExecution
import XCTest

/// Diagnostics are values rendered one way; the terminal writes through its console, so a whole
/// command's words can be captured in-process.
final class TerminalTests: XCTestCase {
    func testDiagnosticsRenderAsFileLineMessage() {
        XCTAssertEqual(Diagnostic.warning(file: "Sources/A.swift", line: 12, "changed since the run").description,
                       "Sources/A.swift:12: changed since the run")
        XCTAssertEqual(Diagnostic.warning(file: "Sources/A.swift", "not UTF-8").description, "Sources/A.swift: not UTF-8")
        XCTAssertEqual(Diagnostic.note("plain").description, "plain")
    }

    func testEveryKindGoesToTheConsoleAndQuietHidesOnlyNotesAndProgress() {
        for quiet in [false, true] {
            let console = CapturedConsole()
            let terminal = Terminal(useColor: false, showProgress: !quiet, quiet: quiet, console: console)
            terminal.printLine("TOTAL")
            terminal.progress("reading")
            terminal.emit(.note("a note"))
            terminal.emit(.warning(file: "X.swift", line: 3, "a warning"))
            terminal.emit(Diagnostic(.error, "an error"))
            terminal.diagnosticLine("coverage gate failed")
            XCTAssertEqual(console.outputText, "TOTAL\n")
            let expected = (quiet ? [] : ["testscope: reading", "testscope: a note"])
                + ["testscope: warning: X.swift:3: a warning", "testscope: error: an error", "testscope: coverage gate failed"]
            XCTAssertEqual(console.diagnosticsText.split(separator: "\n").map(String.init), expected, "quiet: \(quiet)")
        }
    }

    func testACapturedConsoleIsNeverTreatedAsATerminal() {
        let terminal = Terminal.detect(quiet: false, noColor: false, environment: ["TERM": "xterm"], console: CapturedConsole())
        XCTAssertFalse(terminal.useColor)
        XCTAssertFalse(terminal.showProgress)
        XCTAssertTrue(Terminal.detect(quiet: false, noColor: false, environment: ["TESTSCOPE_FORCE_COLOR": "1"], console: CapturedConsole()).useColor)
    }

    func testLockedSerializesConcurrentUpdates() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 1000) { _ in counter.withLock { $0 += 1 } }
        XCTAssertEqual(counter.withLock { $0 }, 1000)
    }
}
