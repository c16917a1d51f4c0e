import Foundation

/// What the live view's one status line says at a moment: the build's `[N/M]`, or the tests' `N/M`
/// with their outcomes, the running test, the elapsed time and an estimate of what is left.
public struct LiveStatus: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        case building(done: Int, total: Int, step: String)
        case testing
        /// Anything else (flaky's runs): the text as it is.
        case custom(String)
    }

    public var phase: Phase
    /// Tests (ids) finished and selected.
    public var done = 0
    public var total = 0
    public var passed = 0, failed = 0, skipped = 0
    /// The test started last, and how many others run beside it.
    public var running: String?
    public var alsoRunning = 0
    public var elapsed: Double = 0
    /// Seconds left, when there is a basis for a guess.
    public var remaining: Double?

    public init(phase: Phase) { self.phase = phase }

    /// The line, at most `width - 1` columns (the last column would make some terminals wrap).
    public func line(width: Int) -> String {
        let limit = max(10, width - 1)
        switch phase {
        case let .building(done, total, step):
            let head = total > 0 ? "Building [\(done)/\(total)]" : "Building"
            let tail = " · " + ScreenText.duration(elapsed)
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
            var fixed = parts.joined(separator: " · ")
            while fixed.count > limit, parts.count > 3 { parts.removeLast(); fixed = parts.joined(separator: " · ") }
            guard var running else { return ScreenText.end(fixed, width: limit) }
            // `Module.Class/test` without its module, the part every test of the target shares.
            if let dot = running.firstIndex(of: "."), running[dot...].contains("/") || running.hasSuffix(")") {
                running = String(running[running.index(after: dot)...])
            }
            let more = alsoRunning > 0 ? " (+\(alsoRunning))" : ""
            let room = limit - fixed.count - 3 - more.count
            guard room >= 12 else { return ScreenText.end(fixed, width: limit) }
            return fixed + " · " + ScreenText.middle(running, width: room) + more
        }
    }

    /// The heartbeat of output that is not a terminal: `testscope: 120/400 tests, 2 failed, 1m30s`.
    public var heartbeat: String {
        switch phase {
        case let .building(done, total, _):
            return "testscope: building" + (total > 0 ? " [\(done)/\(total)]" : "") + ", \(ScreenText.duration(elapsed))"
        case let .custom(text):
            return "testscope: \(text), \(ScreenText.duration(elapsed))"
        case .testing:
            return "testscope: \(done)/\(total) tests, \(failed) failed, \(ScreenText.duration(elapsed))"
                + (remaining.map { ", about \(ScreenText.duration($0)) left" } ?? "")
        }
    }

    /// Seconds left: from earlier durations while few tests have finished (`priorRemaining`: the earlier
    /// run's times of the tests not finished yet), else from the pace of this run so far.
    public static func estimate(elapsed: Double, done: Int, total: Int, priorRemaining: Double?) -> Double? {
        guard total > done else { return nil }
        if let priorRemaining, done < max(5, total / 10) { return priorRemaining }
        guard done > 0, elapsed > 0 else { return priorRemaining }
        return elapsed / Double(done) * Double(total - done)
    }
}

/// What the build prints, sorted for the live view: SwiftPM's `[N/M]` progress, the compiler's
/// diagnostics (with the source lines that follow them), and noise.
public enum BuildLine: Equatable, Sendable {
    case progress(done: Int, total: Int, step: String)
    case diagnostic(String, isError: Bool)
    case noise

    /// Classifies one line; `afterDiagnostic`: the previous line was a diagnostic or its context
    /// (indented source lines, `|` markers and notes follow a compiler diagnostic).
    public static func classify(_ line: String, afterDiagnostic: Bool) -> BuildLine {
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
