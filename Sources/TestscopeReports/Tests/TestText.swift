import Foundation
import TestscopeExecution
import TestscopeTestResults

/// Paths shown to users: relative to the package root when inside it.
package struct PathDisplay: Sendable {
    package var root: String
    package init(root: String) { self.root = root.hasSuffix("/") ? String(root.dropLast()) : root }
    package func relative(_ path: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}

/// Shared wording for issues, crashes and timeouts.
package enum TestText {
    /// `Tests/X.swift:12: message` lines for the failing issues, the crash or the timeout.
    /// Each message at most `BoundedText.messageLimit` bytes, all together at most `BoundedText.outputLimit`.
    package static func failureLines(_ result: TestCaseResult, paths: PathDisplay, fullTextIn: String = "tests.json") -> [String] {
        var lines: [String] = []
        let cap = { (text: String) in BoundedText.cap(text, fullTextIn: fullTextIn) }
        for issue in result.issues where issue.isFailure {
            let place = issue.location.map { "\(paths.relative($0.file)):\($0.line): " } ?? ""
            lines.append(place + cap(issue.message))
            lines += issue.details.map { "    " + cap($0) }
        }
        if let crash = result.crash {
            if result.outcome == .timedOut {
                lines.append("timed out: \(crash.reason ?? "killed after the time limit")")
            } else {
                var head = "crashed"
                if let signal = crash.signal { head += " with signal \(signal)\(signalName(signal).map { " (\($0))" } ?? "")" }
                if let reason = crash.reason { head += ": \(cap(reason))" }
                lines.append(head)
            }
            if let fatal = crash.fatalError { lines.append(cap(fatal)) }
            lines += crash.frames.map { "  " + cap($0) }
        }
        return BoundedText.lines(lines, fullTextIn: fullTextIn)
    }

    static func signalName(_ signal: Int) -> String? {
        [4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 7: "SIGBUS", 8: "SIGFPE", 15: "SIGTERM"][signal]
    }

    /// The first failure, on one line, for summaries and JUnit `message`.
    static func headline(_ result: TestCaseResult) -> String {
        if let issue = result.issues.first(where: \.isFailure) { return oneLine(issue.message) }
        if result.outcome == .timedOut { return "timed out" + (result.duration.map { " after \(seconds($0))" } ?? "") }
        if let crash = result.crash {
            var text = "Process crashed"
            if let signal = crash.signal { text += ": signal \(signal)\(signalName(signal).map { " (\($0))" } ?? "")" }
            if let fatal = crash.fatalError { text += " — " + oneLine(fatal) } else if let reason = crash.reason { text += " — " + oneLine(reason) }
            return text
        }
        return result.outcome.rawValue
    }

    package static func oneLine(_ text: String, limit: Int = 1024) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }

    package static func seconds(_ value: Double) -> String {
        String(format: "%.3f s", value)
    }
}
