import Foundation
import TestscopeExecution
import XCTest

/// `testscope run` as a person sees it: in a real terminal (tmux, 100×30) the screen holds the status
/// line and no raw test line, and the final screen fits; through pipes, plain lines only.
final class LiveTerminalTests: XCTestCase {
    var output: URL!

    override func setUpWithError() throws { output = try TestscopeProcess.temporaryDirectory("live") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    /// tmux on a server of its own (`-L`), so that no user's session is touched.
    struct Tmux {
        let socket = "testscope-\(UUID().uuidString.prefix(8))"
        /// Through `ProcessRunner` (posix_spawn, every descriptor close-on-exec but 0–2): Foundation's
        /// `Process` watches its child through a socket the child inherits, and the server that
        /// `new-session` forks keeps that socket, so `waitUntilExit` would wait as long as the server lives.
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["tmux", "-L", socket] + arguments)
            return result.stdoutText
        }
        /// The pane as text, wrapped lines joined (`-J`): a line longer than the pane's width is one that wrapped.
        /// `escapes`: with the escape sequences of the cells' colours and attributes (`-e`).
        func capture(history: Bool = false, escapes: Bool = false) throws -> String {
            try run(["capture-pane", "-p", "-J", "-t", "live"] + (history ? ["-S", "-"] : []) + (escapes ? ["-e"] : []))
        }
    }

    /// Runs `testscope ARGUMENTS` in a 100×30 tmux pane and captures it every 0.1 s until it ends: the
    /// captures, and at the end the whole history (with its escape sequences when `escapes`).
    /// `environment`: `NAME=value` words put before the command.
    func inTmux(_ arguments: [String], width: Int = 100, environment: [String] = [], escapes: Bool = false) throws -> (captures: [String], final: String?) {
        // Fail at once without tmux (.ci/run installs it); otherwise every capture would be empty until the deadline.
        struct NoTmux: Error, CustomStringConvertible { let description = "this test needs /usr/bin/tmux (apt-get install tmux)" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { throw NoTmux() }
        let tmux = Tmux()
        defer { _ = try? tmux.run(["kill-server"]) }
        // The command as a user would type it, in a shell of the session; CI variables removed (they turn the status line off).
        let command = "env -u CI -u GITHUB_ACTIONS -u NO_COLOR -u COLUMNS \(environment.map { "'\($0)' " }.joined())'\(TestscopeProcess.executable.path)' "
            + arguments.map { "'\($0)'" }.joined(separator: " ") + "; echo TESTSCOPE-EXIT=$?; sleep 600"
        try tmux.run(["new-session", "-d", "-s", "live", "-x", "\(width)", "-y", "30", command])
        let deadline = Date().addingTimeInterval(900)
        var captures: [String] = []
        while Date() < deadline {
            let screen = try tmux.capture()
            captures.append(screen)
            if screen.contains("TESTSCOPE-EXIT=") { return (captures, try tmux.capture(history: true, escapes: escapes)) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return (captures, nil)
    }

    func testTheTerminalShowsAStatusLineThenAScreenThatFits() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Durations")
        let (captures, end) = try inTmux(["run", "--package-path", package.path, "--output", output.path])
        let start = captures.first { $0.split(separator: "\n").contains { $0.hasPrefix("Building") } }
        let middle = captures.first { $0.split(separator: "\n").contains { $0.range(of: #"^Testing \d+/\d+ · "#, options: .regularExpression) != nil } }
        let final = try XCTUnwrap(end, "testscope did not finish in 15 minutes:\n\(captures.last ?? "")")
        XCTAssertFalse(final.contains("testscope: reading"), "the reporting steps are transient:\n\(final)")
        XCTAssertTrue(final.contains("TESTSCOPE-EXIT=0"), final)
        XCTAssertNotNil(start, "no capture showed the build's status line:\n\(captures.prefix(3).joined(separator: "\n---\n"))")
        XCTAssertNotNil(middle, "no capture showed the tests' status line")
        for screen in captures + [final] {
            XCTAssertFalse(screen.contains("Test Case '"), "a raw XCTest line reached the screen:\n\(screen)")
            XCTAssertFalse(screen.contains("◇ Test") || screen.contains("✔ Test"), "a raw Swift Testing line reached the screen:\n\(screen)")
        }
        // The final screen: the verdict first, every row within 100 columns, the reports' line last.
        let lines = final.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let verdict = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("✓ Tests: ") }, final)
        let exit = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("TESTSCOPE-EXIT=") }, final)
        for line in lines[verdict..<exit] { XCTAssertLessThanOrEqual(line.count, 100, "wrapped: \(line)") }
        XCTAssertTrue(lines[verdict + 1].hasPrefix("Coverage: lines "), lines[verdict + 1])
        XCTAssertTrue(lines[verdict..<exit].contains { $0.hasPrefix("TOTAL ") }, final)
        XCTAssertTrue(lines[..<exit].last { !$0.isEmpty }?.hasPrefix("HTML report: \(output.path)/index.html") ?? false, final)
        if let directory = ProcessInfo.processInfo.environment["TESTSCOPE_SAVE_CAPTURES"] {
            for (name, screen) in [("start", start), ("middle", middle), ("end", end)] {
                try screen?.write(toFile: "\(directory)/\(name).txt", atomically: true, encoding: .utf8)
            }
        }
    }

    /// The Warnings fixture, built afresh, in a 100-column terminal with `NO_COLOR=1` and a long output
    /// folder (issue 41, items 5, 6, 9 and 12's NO_COLOR): the build's 203 warnings are the first few in
    /// full and each message once with its count; the status line counts results in one unit (passed +
    /// failed = done ≤ total, a parameterized test's cases each one) and names the test that runs long;
    /// no colour at all; every line of the final screen fits, the reports' line with its long path too.
    func testAFloodOfWarningsALongTestAndNoColor() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Warnings")
        // A build folder of its own: the compiler prints its warnings only when it compiles the files.
        let scratch = output.appendingPathComponent("scratch")
        let folder = output.appendingPathComponent("a-folder-with-a-rather-long-name/and-another-one-inside-it/the-reports-of-this-run")
        let (captures, end) = try inTmux(["run", "--package-path", package.path, "--scratch-path", scratch.path, "--output", folder.path],
                                         environment: ["NO_COLOR=1"], escapes: true)
        let final = try XCTUnwrap(end, "testscope did not finish in 15 minutes:\n\(captures.last ?? "")")
        XCTAssertTrue(final.contains("TESTSCOPE-EXIT=0"), final)
        // NO_COLOR (no-color.org: any non-empty value): not one escape sequence on the screen.
        XCTAssertFalse(final.contains("\u{1B}["), "colour with NO_COLOR=1:\n\(final.debugDescription)")
        let lines = final.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let exit = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("TESTSCOPE-EXIT=") }, final)
        let screen = Array(lines[..<exit].drop { !$0.contains("testscope") })

        // 5. The build's warnings, as the log has them all.
        let log = try String(contentsOf: folder.appendingPathComponent("swift-test.log"), encoding: .utf8)
        let warnings = Set(log.split(separator: "\n").filter { $0.contains(": warning: ") })
        let messages = Dictionary(grouping: warnings) { $0.components(separatedBy: ": warning: ")[1] }
        let top = try XCTUnwrap(messages.max { $0.value.count < $1.value.count })
        XCTAssertGreaterThan(top.value.count, 100, "the fixture's build repeats one warning")
        // A long path (the checkout's folder) puts the location on a line of its own, wrapped before `warning:`.
        XCTAssertEqual(screen.filter { $0.contains(": warning:") || $0.hasPrefix("  warning: ") }.count, min(5, messages.count), final)
        XCTAssertTrue(screen.contains { $0.hasPrefix("testscope: the build printed \(warnings.count) warnings (\(messages.count) different messages, ") }, final)
        XCTAssertTrue(screen.contains { $0.hasPrefix("  \(top.value.count)× \(top.key.prefix(40))") }, final)
        XCTAssertLessThan(screen.count, 100, "the screen is not flooded:\n\(final)")

        // 6. Every status line: passed + failed = done ≤ total; the denominator never below the results, and
        // at most the run's results (tests.json); the test that runs long named.
        let results = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("tests.json"))) as? [String: Any])?["tests"] as? [Any]).count
        let status = try NSRegularExpression(pattern: #"^Testing (\d+)/(\d+) · (\d+) passed · (\d+) failed"#, options: .anchorsMatchLines)
        var seen = 0
        for capture in captures {
            for match in status.matches(in: capture, range: NSRange(capture.startIndex..., in: capture)) {
                let n = (1...4).map { Int(capture[Range(match.range(at: $0), in: capture)!])! }
                XCTAssertEqual(n[2] + n[3], n[0], "passed + failed = done: \(capture)")
                XCTAssertLessThanOrEqual(n[0], n[1], "done ≤ total: \(capture)")
                XCTAssertLessThanOrEqual(n[1], results, "the run has \(results) results: \(capture)")
                seen += 1
            }
        }
        XCTAssertGreaterThan(seen, 0, "no capture showed the tests' status line")
        XCTAssertTrue(captures.contains { $0.range(of: #"LegacyTests/testTakesLong \([5-9]s\)"#, options: .regularExpression) != nil },
                      "the test running 7 s is named with its time:\n\(captures.last { $0.contains("Testing ") } ?? "")")

        // 9. Every line fits; the reports' line shortens the folder's path in its middle.
        for line in screen { XCTAssertLessThanOrEqual(line.count, 100, "wrapped: \(line)") }
        let reports = try XCTUnwrap(screen.last { !$0.isEmpty }, final)
        XCTAssertTrue(reports.hasPrefix("HTML report: /") && reports.contains("…") && reports.contains("index.html"), reports)
    }

    /// `flaky` in a terminal: the status line, then a final screen that starts with the verdict, fits
    /// the width but for the commands (kept whole to be copied) and ends with the reports' line.
    func testFlakyEndsOnAVerdictFirstScreenThatFits() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
        let (captures, end) = try inTmux(["flaky", "--package-path", package.path, "--runs", "4", "--seed", "3", "--output", output.path])
        let final = try XCTUnwrap(end, "testscope flaky did not finish in 15 minutes:\n\(captures.last ?? "")")
        XCTAssertTrue(final.contains("TESTSCOPE-EXIT=1"), "a fixture test fails in every run\n\(final)")
        // The runs may take less than a capture's interval: the build's or the runs' status line.
        XCTAssertTrue(captures.contains { $0.contains("Flaky runs ") || $0.split(separator: "\n").contains { $0.hasPrefix("Building") } },
                      "no capture showed a status line")
        let lines = final.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let verdict = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("✗ Flaky: ") }, final)
        let exit = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("TESTSCOPE-EXIT=") }, final)
        // (The NOD test fails in all 4 runs one time in 16: then it is a consistent failure too.)
        XCTAssertTrue(lines[verdict + 1].hasPrefix("testscope: error: "), lines[verdict + 1])
        XCTAssertTrue(lines[verdict + 1].contains("failed in every run: FlakyTests.LegacyTests/testAlwaysFails"), lines[verdict + 1])
        XCTAssertTrue(lines[verdict + 3].hasPrefix("consistent-failure FlakyTests."), final)
        // Lines joined by `-J` are whole: a command or the replay line may be longer than the pane; nothing else.
        for line in lines[..<exit] where !line.hasPrefix("    $ testscope flaky ") && !line.hasPrefix("Replay run K of this seed: ")
            && !line.hasPrefix("testscope: building") && !line.hasPrefix("testscope: error: ") {
            XCTAssertLessThanOrEqual(line.count, 100, "wrapped: \(line)")
        }
        XCTAssertTrue(lines[..<exit].last { !$0.isEmpty }?.hasPrefix("HTML report: \(output.path)/flaky.html") ?? false, final)
        XCTAssertFalse(final.contains("Flaky runs 4/4 · "), "the status line is gone from the final screen\n\(final)")
        if let directory = ProcessInfo.processInfo.environment["TESTSCOPE_SAVE_CAPTURES"] {
            try final.write(toFile: "\(directory)/flaky-end.txt", atomically: true, encoding: .utf8)
        }
    }

    func testPipedOutputIsPlainLinesWithFailuresAndAHeartbeat() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Inventory")
        // Colours allowed and a colour terminal named: the pipes alone must turn them off.
        let result = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path],
                                              environment: ["NO_COLOR": "", "TERM": "xterm-256color", "TESTSCOPE_HEARTBEAT": "1"])
        XCTAssertEqual(result.status, 1, "the fixture's deliberate failures\n\(result.stderr)")
        for (name, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
            XCTAssertFalse(text.contains("\r"), "\(name) has a carriage return")
            XCTAssertFalse(text.contains("\u{1B}"), "\(name) has an escape sequence")
            XCTAssertFalse(text.contains("Test Case '"), "\(name) has a raw XCTest line")
        }
        // Each failure as it happened, with its place and message, before the final screen.
        let failure = "FAILED InventoryCoreTests.InventoryCoreTests/testDeliberateFailure"
        XCTAssertTrue(result.stderr.contains(failure), result.stderr)
        XCTAssertTrue(result.stderr.contains("Tests/InventoryCoreTests/InventoryCoreTests.swift:59: XCTAssertEqual failed"), result.stderr)
        XCTAssertTrue(result.stderr.split(separator: "\n").contains { $0.hasPrefix("testscope: building") }, "a heartbeat line during the build\n\(result.stderr)")
        // The raw log keeps everything.
        let log = try String(contentsOf: output.appendingPathComponent("swift-test.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("Test Case '"), "the raw XCTest lines are in swift-test.log")
        XCTAssertTrue(result.stdout.hasPrefix("\n✗ Tests: "), result.stdout)
        // The coverage verdict is kept whole off a terminal (CI's `coverage:` patterns read it); other rows fit 80.
        for line in result.stdout.split(separator: "\n") where !line.hasPrefix("    ") && !line.hasPrefix("HTML report: ") && !line.hasPrefix("Coverage: ") {
            XCTAssertLessThanOrEqual(line.count, 80, "not a terminal: 80 columns\n\(line)")
        }
    }
}
