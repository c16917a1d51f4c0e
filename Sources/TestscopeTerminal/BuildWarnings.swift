import Foundation
import TestscopeReports

/// The build's warnings as the live view shows them (as xcbeautify's users expect): the first few in
/// full, as they come; after the build, every message once with its count. A package such as GRDB
/// prints hundreds (178 times "conformance of 'Row' to 'Sendable' is unavailable"), which would scroll
/// the screen for minutes; the build's log keeps every one of them.
struct BuildWarnings: Sendable {
    /// Warnings printed in full, each with a message not printed before.
    static let inFull = 5
    /// Messages listed in the summary; the rest are counted on one line.
    static let listed = 10

    struct Group: Sendable, Equatable {
        var message: String
        var count: Int
        /// `Sources/X.swift:12` of the first warning with this message ("" for one without a place).
        var first: String
    }

    /// Distinct warnings (SwiftPM's repeats of one are filtered out before).
    private(set) var count = 0
    private(set) var shown = 0
    private(set) var groups: [Group] = []
    private var index: [String: Int] = [:]

    /// Counts `line` (a warning's first line); true when it is printed in full (with its source lines).
    mutating func add(_ line: String, paths: PathDisplay) -> Bool {
        count += 1
        let (place, message) = Self.split(line, paths: paths)
        if let i = index[message] {
            groups[i].count += 1
            return false
        }
        index[message] = groups.count
        groups.append(Group(message: message, count: 1, first: place))
        guard shown < Self.inFull else { return false }
        shown += 1
        return true
    }

    /// The summary printed once the build is over, when some warnings were not shown in full: a line per
    /// message with its count, the most frequent first, then where they all are. `width`: on a terminal,
    /// each line is cut to it (one line per message; the log has the whole text).
    func summary(log: String?, width: Int?) -> [String] {
        guard count > shown else { return [] }
        let messages = groups.count == 1 ? "1 message" : "\(groups.count) different messages"
        var lines = ["testscope: the build printed \(count) warning\(count == 1 ? "" : "s") (\(messages), \(shown == 0 ? "none" : "\(shown)") shown above):"]
        let sorted = groups.enumerated().sorted { ($1.element.count, $0.offset) < ($0.element.count, $1.offset) }.map(\.element)
        let digits = String(sorted.first?.count ?? 0).count
        for group in sorted.prefix(Self.listed) {
            let times = String(repeating: " ", count: digits - String(group.count).count) + "\(group.count)×"
            let place = group.first.isEmpty ? "" : " (\(group.first)\(group.count > 1 ? ", …" : ""))"
            lines.append("  \(times) \(group.message)\(place)")
        }
        if sorted.count > Self.listed {
            let rest = sorted.dropFirst(Self.listed)
            let warnings = rest.reduce(0) { $0 + $1.count }
            lines.append("  … and \(rest.count) more message\(rest.count == 1 ? "" : "s") (\(warnings) warning\(warnings == 1 ? "" : "s"))")
        }
        if let log {
            let head = "  every one of them is in "
            lines.append(head + (width.map { ScreenText.middle(log, width: max(12, $0 - head.count)) } ?? log))
        }
        return width.map { width in lines.map { ScreenText.end($0, width: width) } } ?? lines
    }

    /// `/p/Sources/X.swift:12:7: warning: message` → (`Sources/X.swift:12`, `message`); `warning: message` → ("", `message`).
    static func split(_ line: String, paths: PathDisplay) -> (place: String, message: String) {
        guard let marker = line.range(of: "warning: ") else { return ("", line) }
        let message = String(line[marker.upperBound...])
        var place = line[..<marker.lowerBound].trimmingCharacters(in: CharacterSet(charactersIn: ": "))
        // The column says nothing in a summary: `file:line`.
        let parts = place.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count >= 3, Int(parts[parts.count - 1]) != nil, Int(parts[parts.count - 2]) != nil { place = parts.dropLast().joined(separator: ":") }
        return (paths.relative(place), message)
    }
}
