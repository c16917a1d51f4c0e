import Foundation
import TestscopeReports

/// What the live view's one status line says at a moment: the build's `[N/M]` and its warnings, or the
/// tests' `N/M` with their outcomes, the running test, the elapsed time and an estimate of what is left.
package struct LiveStatus: Sendable, Equatable {
    package enum Phase: Sendable, Equatable {
        case building(done: Int, total: Int, step: String)
        case testing
        /// Anything else (flaky's runs): the text as it is.
        case custom(String)
    }

    /// A test running this many seconds is named with its time: it is why nothing moves.
    package static let longTest = 5.0

    package var phase: Phase
    /// The build's warnings so far.
    package var warnings = 0
    /// Results so far (a parameterized test's cases each one, as the final screen counts them), and the
    /// results so far plus the selected tests with none yet: passed + failed + skipped = done ≤ total.
    package var done = 0
    package var total = 0
    package var passed = 0, failed = 0, skipped = 0
    /// The test shown (the one running long, else the last started), how long it has run when that is
    /// long, and how many others run beside it.
    package var running: String?
    package var runningFor: Double?
    package var alsoRunning = 0
    package var elapsed: Double = 0
    /// Seconds left, when there is a basis for a guess.
    package var remaining: Double?

    package init(phase: Phase) { self.phase = phase }

    /// The line, at most `width - 1` columns (the last column would make some terminals wrap).
    package func line(width: Int) -> String {
        let limit = max(10, width - 1)
        switch phase {
        case let .building(done, total, step):
            let head = total > 0 ? "Building [\(done)/\(total)]" : "Building"
            let tail = (warnings > 0 ? " · \(warnings) warning\(warnings == 1 ? "" : "s")" : "") + " · " + ScreenText.duration(elapsed)
            let room = limit - head.count - tail.count - 1
            let what = step.isEmpty || room < 8 ? "" : " " + ScreenText.middle(step, width: room)
            return ScreenText.end(head + what + tail, width: limit)
        case let .custom(text):
            return ScreenText.end(text + " · " + ScreenText.duration(elapsed), width: limit)
        case .testing:
            var parts = ["Testing \(done)/\(total)", "\(passed) passed", "\(failed) failed"]
            if skipped > 0 { parts.append("\(skipped) skipped") }
            parts.append(ScreenText.duration(elapsed))
            if let remaining { parts.append("~\(ScreenText.duration(remaining)) left") }
            let more = (runningFor.map { " (\(ScreenText.duration($0)))" } ?? "") + (alsoRunning > 0 ? " (+\(alsoRunning))" : "")
            // `Module.Class/test` without its module, the part every test of the target shares.
            let name = running.map { running in
                running.firstIndex(of: ".").flatMap { dot in
                    running[dot...].contains("/") || running.hasSuffix(")") ? String(running[running.index(after: dot)...]) : nil
                } ?? running
            }
            // A test running long is why nothing moves: the estimate and the elapsed time give way to its name.
            let needed = runningFor != nil ? name.map { 3 + min($0.count, 30) + more.count } ?? 0 : 0
            var fixed = parts.joined(separator: " · ")
            while fixed.count + needed > limit, parts.count > 3 { parts.removeLast(); fixed = parts.joined(separator: " · ") }
            guard let running = name else { return ScreenText.end(fixed, width: limit) }
            let room = limit - fixed.count - 3 - more.count
            guard room >= 12 else { return ScreenText.end(fixed, width: limit) }
            return fixed + " · " + ScreenText.middle(running, width: room) + more
        }
    }

    /// The heartbeat of output that is not a terminal: `testscope: 120/400 tests, 2 failed, 1m30s`.
    package var heartbeat: String {
        switch phase {
        case let .building(done, total, _):
            return "testscope: building" + (total > 0 ? " [\(done)/\(total)]" : "") + (warnings > 0 ? ", \(warnings) warning\(warnings == 1 ? "" : "s")" : "")
                + ", \(ScreenText.duration(elapsed))"
        case let .custom(text):
            return "testscope: \(text), \(ScreenText.duration(elapsed))"
        case .testing:
            return "testscope: \(done)/\(total) tests, \(failed) failed, \(ScreenText.duration(elapsed))"
                + (remaining.map { ", about \(ScreenText.duration($0)) left" } ?? "")
                + (running.flatMap { name in runningFor.map { ", \(name) running for \(ScreenText.duration($0))" } } ?? "")
        }
    }

    /// Seconds left, by the earlier run's times (`work`: the selected tests' earlier times added up;
    /// `workDone`: those of the tests with a result; `running`: how long each running test has run and
    /// took before): the work left at this run's pace — the earlier run's until 5 % of the work is done —
    /// so that a few long tests weigh what they took, never less than a running test still needs. None
    /// without an earlier run or below a second. The count of tests is no basis: on swift-nio it said
    /// 24 s when a few long tests had 1m15s to go.
    package static func estimate(elapsed: Double, workDone: Double, work: Double, running: [(ran: Double, earlier: Double)] = []) -> Double? {
        guard work > 0, workDone < work else { return nil }
        let done = workDone + running.reduce(0) { $0 + min($1.ran, $1.earlier) }
        let pace = done >= work * 0.05 && elapsed >= 1 ? elapsed / done : 1
        let left = max((work - done) * pace, running.map { $0.earlier - $0.ran }.max() ?? 0)
        return left >= 1 ? left : nil
    }
}

/// What the build prints, sorted for the live view: SwiftPM's `[N/M]` progress, the compiler's
/// diagnostics (with the source lines that follow them), and noise.
package enum BuildLine: Equatable, Sendable {
    case progress(done: Int, total: Int, step: String)
    case diagnostic(String, isError: Bool)
    case noise

    /// Classifies one line; `afterDiagnostic`: the previous line was a diagnostic or its context
    /// (indented source lines, `|` markers and notes follow a compiler diagnostic).
    package static func classify(_ line: String, afterDiagnostic: Bool) -> BuildLine {
        let utf8 = line.utf8
        if utf8.first == UInt8(ascii: "["), let close = line.firstIndex(of: "]"), line.distance(from: line.startIndex, to: close) < 24 {
            let counts = line[line.index(after: line.startIndex)..<close].split(separator: "/")
            if counts.count == 2, let done = Int(counts[0]), let total = Int(counts[1]) {
                return .progress(done: done, total: total, step: String(line[line.index(after: close)...].drop { $0 == " " }))
            }
        }
        // Only the start of a long line is searched: a diagnostic names its place first.
        let head = line.utf8.count > 4096 ? String(decoding: utf8.prefix(4096), as: UTF8.self) : line
        if head.hasPrefix("error:") || head.contains(": error:") { return .diagnostic(line, isError: true) }
        if head.hasPrefix("warning:") || head.contains(": warning:") { return .diagnostic(line, isError: false) }
        if afterDiagnostic, head.contains(": note:") || head.hasPrefix(" ") || head.hasPrefix("\t") || isSourceLine(head) {
            return .diagnostic(line, isError: false)
        }
        return .noise
    }

    /// `12 |     let x = 1`: a source line the compiler quotes under a diagnostic.
    static func isSourceLine(_ line: String) -> Bool {
        let rest = line.drop { $0.isNumber }
        return rest.count < line.count && rest.hasPrefix(" |")
    }
}
