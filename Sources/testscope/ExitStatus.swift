import ArgumentParser
import Foundation
import TestscopeExecution
import TestscopeKit

/// The documented exit statuses (README "Exit status").
enum ExitStatus: Int32 {
    case success = 0
    case testsFailed = 1
    case belowThreshold = 2
    /// `testscope flaky --fail-on-flaky` found flaky tests that are not quarantined.
    case flaky = 3
    case usage = 64
    case badInput = 65
    case internalError = 70

    var exitCode: ExitCode { ExitCode(rawValue) }
    /// The status of a command's verdict.
    init(_ status: Outcome.Status) {
        self = ExitStatus(rawValue: status.exitStatus) ?? .internalError
    }
}

/// Runs a command through the library, turning its outcome, or any error (one line on stderr), into
/// the documented exit status; SIGINT, SIGTERM and SIGHUP stop it with 130 (`Interruption`); `--open`
/// shows the HTML report it wrote.
func execute(_ options: OutputOptions, _ body: (Pipeline) throws -> Outcome) throws {
    try execute(terminal: options.terminal, open: options.open, body)
}

/// `execute` for the commands without the output options (`history`).
func execute(terminal: Terminal, open: Bool = false, _ body: (Pipeline) throws -> Outcome) throws {
    Interruption.install()
    let status: ExitStatus
    do {
        let outcome = try body(Pipeline(terminal: terminal))
        if open { ReportOpener.open(outcome.written, terminal: terminal) }
        status = ExitStatus(outcome.status)
    } catch {
        terminal.error(describe(error).0)
        status = describe(error).1
    }
    if status != .success { throw status.exitCode }
}

/// Every error's message and the status of its class.
func describe(_ error: Error) -> (String, ExitStatus) {
    if let error = error as? ValidationError { return (error.message, .usage) }
    let statuses: [ErrorClass: ExitStatus] = [.usage: .usage, .badInput: .badInput, .testsFailed: .testsFailed]
    return (SystemErrorText.message(error), (error as? ClassifiedError).flatMap { statuses[$0.errorClass] } ?? .internalError)
}
