import ArgumentParser
import Foundation
import TestscopeExecution
import TestscopeKit

extension Testscope {
    /// `testscope history FILE`, `testscope history merge A B … --into FILE` and `testscope history push --into URL` (docs/history.md).
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Show what a --history file says (flaky, broken and slower tests, coverage trend), or merge history files.",
            subcommands: [Show.self, Merge.self, Push.self], defaultSubcommand: Show.self)

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "show",
                abstract: "Per test: runs, failures, flip rate, same-code disagreements, duration trend; what changed recently; the coverage trend; a quarantine file.")
            @Argument(help: ArgumentHelp("The history file or postgresql:// URL (written by run/flaky --history).", valueName: "file.sqlite|url")) var file: String
            @Option(name: .long, help: ArgumentHelp("Only runs started on or after this date (YYYY-MM-DD, UTC) or instant (ISO 8601).", valueName: "date")) var since: String?
            @Option(name: .long, help: ArgumentHelp("Only runs on this branch.", valueName: "name")) var branch: String?
            @Option(name: .long, help: ArgumentHelp("Also write history.html into this folder.", valueName: "dir")) var output: String?
            @Flag(name: .long, help: "Only errors and the history.") var quiet = false

            func validate() throws {
                if let since { _ = try usage { try HistoryRequest.since(since) } }
                _ = try historyURL(file)
            }

            func run() throws {
                try execute(terminal: Terminal.detect(quiet: quiet, noColor: true)) { pipeline in
                    var request = HistoryRequest(file: try historyURL(file))
                    request.since = try since.map(HistoryRequest.since)
                    (request.branch, request.output) = (branch, output.map(absoluteURL))
                    return try pipeline.history(request)
                }
            }
        }

        struct Merge: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "merge",
                abstract: "Add the runs of history files to another (a run already there is not added again).")
            @Argument(help: ArgumentHelp("History files (or postgresql:// URLs) to read.", valueName: "file.sqlite|url")) var sources: [String]
            @Option(name: .long, help: ArgumentHelp("The history file (created if missing) or postgresql:// URL to add them to.", valueName: "file.sqlite|url")) var into: String

            func validate() throws {
                if sources.isEmpty { throw ValidationError("history merge needs at least one file to read") }
                _ = try (sources + [into]).map(historyURL)
            }

            func run() throws {
                try execute(terminal: Terminal.detect(quiet: false, noColor: true)) { pipeline in try pipeline.mergeHistory(sources.map(historyURL), into: historyURL(into)) }
            }
        }

        struct Push: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "push",
                abstract: "Send the runs kept in OUTPUT/history-pending.sqlite (the server was away) to the history; the file is removed once they are in.")
            @Option(name: .long, help: ArgumentHelp("The output folder the runs were kept in (default: .testscope under the package).", valueName: "dir")) var output: String?
            @Option(name: .long, help: ArgumentHelp("The postgresql:// URL (or history file) to send them to.", valueName: "url|file.sqlite")) var into: String

            func validate() throws { _ = try historyURL(into) }

            func run() throws {
                try execute(terminal: Terminal.detect(quiet: false, noColor: true)) { pipeline in
                    try pipeline.pushHistory(output: output.map(absoluteURL), into: historyURL(into))
                }
            }
        }
    }
}
