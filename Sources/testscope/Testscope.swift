import ArgumentParser
import Foundation
import TestscopeExecution
import TestscopeKit

/// The `testscope` command: coverage and test results for Swift packages.
@main
struct Testscope: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "testscope",
        abstract: "Run a Swift package's tests with coverage and report exact per-line, per-function coverage.",
        discussion: """
        Exit status: 0 success; 1 tests failed; 2 coverage below a --fail-under threshold; 3 flaky tests (testscope flaky --fail-on-flaky); \
        64 bad usage; 65 bad input (missing, unreadable or invalid files, wrong toolchain); 70 internal error; 130 interrupted (SIGINT, SIGTERM or SIGHUP: the processes it started are stopped, its temporary files removed).
        """,
        version: TestscopeVersion.current,
        subcommands: [Run.self, Report.self, Merge.self, Flaky.self, History.self]
    )

    /// Like ArgumentParser's `main()`, but a usage error is one `testscope: error:` line (what is
    /// wrong, and where the help is) with exit status 64, as every other error is one line.
    static func main() {
        _ = StandardStreams.ignoreSIGPIPE  // `testscope --help | head -1` ends quietly too
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            // --help and --version arrive as errors too; ArgumentParser prints those itself.
            guard exitCode(for: error) != .success else { exit(withError: error) }
            let subcommand = CommandLine.arguments.dropFirst().first { ["run", "report", "merge", "flaky", "history"].contains($0) }
            let help = "testscope" + (subcommand.map { " " + $0 } ?? "") + " --help"
            let lines = message(for: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let what = lines.first { !$0.isEmpty } ?? "invalid arguments"
            StandardStreams.write(STDERR_FILENO, "testscope: error: \(what) (see '\(help)')\n")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            try command.run()
            StandardConsole.endTransientLine()
        } catch {
            StandardConsole.endTransientLine()
            exit(withError: error)
        }
    }
}
