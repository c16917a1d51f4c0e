import Foundation
import TestscopeExecution
import TestscopeHistory
import TestscopeReports
import TestscopeTerminal

/// `testscope history FILE`: what the history says, printed; `--output DIR` also draws `history.html` there.
public struct HistoryRequest: Sendable {
    public var file: URL
    /// Only runs started at or after this instant (`--since`).
    public var since: Date?
    /// Only runs on this branch (`--branch`).
    public var branch: String?
    /// Also write `history.html` (of the selected runs) into this folder.
    public var output: URL?

    public init(file: URL) { self.file = file }

    /// `--since`: a date (`2026-11-01`, midnight UTC) or an ISO 8601 instant (`2026-11-01T12:00:00Z`,
    /// `…T12:00:00.5+01:00`), the whole text and a real day: Foundation's parser alone reads the date at the
    /// start of `2026-11-29T10:33` or `2026-11-29junk` and rolls `2026-02-30` over to March.
    public static func since(_ text: String) throws -> Date {
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        let instant = ISO8601DateFormatter()
        instant.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        // `YYYY-MM-DD` names a day of the calendar: 2026-02-30 would come back as another day.
        func realDay(_ date: Substring) -> Bool { day.date(from: String(date)).map { day.string(from: $0) == date } ?? false }
        let isDay = text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil
        let isInstant = text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/) != nil
        let date = isDay ? day.date(from: text) : isInstant ? instant.date(from: text) : nil
        guard let date, realDay(text.prefix(10)) else {
            throw UsageError("--since takes a date (2026-11-01) or an ISO 8601 instant (2026-11-01T12:00:00Z), not '\(text)'")
        }
        return date
    }


}

extension Pipeline {
    /// Prints the history of `request.file` (read only: the file is opened read-only and never changed).
    public func history(_ request: HistoryRequest) throws -> Outcome {
        let store = try HistoryStore(url: request.file, mode: .read, busyTimeout: historyTimeout)
        let analysis = try store.analysis(since: request.since, branch: request.branch)
        try store.close()
        // The folder first: one that cannot be made fails before anything is printed.
        let output = request.output.map { OutputFolder($0.absoluteURL) }
        try output?.prepare()
        let text = HistoryText(path: request.file.historyDisplay, since: request.since, branch: request.branch).render(analysis)
        // On a terminal every line fits its width (a long test name goes on in the next line, indented);
        // into a file or a pipe the lines stay whole.
        terminal.print(terminal.columns.map { width in
            text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { ScreenText.wrap(String($0), width: width) }.joined(separator: "\n")
        } ?? text)
        var outcome = Outcome()
        if let output {
            let pages = PagesManifest.read(in: output).replacing(.history, with: [.history], command: "history", in: output)
            var page = HistoryHTMLPage(templates: try HTMLTemplates.builtIn(), generatorVersion: TestscopeVersion.current,
                                       packageRoot: FileManager.default.currentDirectoryPath)
            (page.navigation, page.historyPath) = (pages.navigation, request.file.historyDisplay)
            outcome.written.append(try page.write(analysis, into: output))
            try pages.write(into: output)
            terminal.note("HTML history: \(outcome.written[0])")
        }
        return outcome
    }

    /// `testscope history merge A B … --into FILE`: every run of the sources not yet in FILE, by its
    /// uuid (merging the same file twice adds nothing). Every source is checked before FILE is opened.
    public func mergeHistory(_ sources: [URL], into target: URL) throws -> Outcome {
        let (added, present) = try HistoryStore.merge(sources, into: target, busyTimeout: historyTimeout)
        terminal.printLine("merged \(sources.count) file\(sources.count == 1 ? "" : "s") into \(target.historyDisplay): \(added) run\(added == 1 ? "" : "s") added, \(present) already there")
        return Outcome()
    }
}

extension Pipeline {
    /// How long a history writer waits for another process's transaction: `TESTSCOPE_HISTORY_TIMEOUT`
    /// seconds, else `HistoryStore.defaultBusyTimeout` (docs/history.md).
    var historyTimeout: TimeInterval {
        environment["TESTSCOPE_HISTORY_TIMEOUT"].flatMap(Double.init).flatMap { $0 >= 0 ? $0 : nil } ?? HistoryStore.defaultBusyTimeout
    }
}
