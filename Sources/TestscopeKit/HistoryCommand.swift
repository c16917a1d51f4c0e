import Foundation
import TestscopeExecution
import TestscopeHistory
import TestscopeReports

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

    /// `--since`: a date (`2026-11-01`, midnight UTC) or an ISO 8601 instant (`2026-11-01T12:00:00Z`).
    public static func since(_ text: String) throws -> Date {
        let instant = ISO8601DateFormatter()
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        guard let date = instant.date(from: text) ?? day.date(from: text) else {
            throw UsageError("--since takes a date (2026-11-01) or an ISO 8601 instant (2026-11-01T12:00:00Z), not \(text)")
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
        terminal.print(HistoryText(path: request.file.historyDisplay, since: request.since, branch: request.branch).render(analysis))
        var outcome = Outcome()
        if let folder = request.output {
            let output = OutputFolder(folder.absoluteURL)
            try output.prepare()
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
