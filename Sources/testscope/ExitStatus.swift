import ArgumentParser
import TestscopeExecution
import TestscopeKit

/// Runs a command through the library and exits with the documented status (README "Exit status"):
/// its outcome's (`Outcome.Status.exitStatus`), or for an error, one line on stderr and its class's
/// (`ErrorClass.exitStatus`; a `ValidationError` is a usage error). SIGINT, SIGTERM and SIGHUP stop it
/// with 130 (`Interruption`); `--open` shows the HTML report it wrote.
func execute(_ options: OutputOptions, _ body: (Pipeline) throws -> Outcome) throws {
    try execute(terminal: options.terminal, open: options.open, body)
}

/// The outcome of the command, never released (see `execute`).
private let finalOutcome = Locked<Outcome?>(nil)

/// `execute` for the commands without the output options (`history`).
func execute(terminal: Terminal, open: Bool = false, _ body: (Pipeline) throws -> Outcome) throws {
    Interruption.install()
    let status: Int32
    do {
        let outcome = try body(Pipeline(terminal: terminal))
        if open { ReportOpener.open(outcome.written, terminal: terminal) }
        status = outcome.status.exitStatus
        // Kept until the process exits, which frees it at once: freeing the model (every file's
        // lines and functions) object by object on the way out took 7 % of a text report's wall
        // time at 800 files, on one core.
        finalOutcome.withLock { $0 = outcome }
    } catch let error as ValidationError {
        terminal.error(error.message)
        status = ErrorClass.usage.exitStatus
    } catch {
        terminal.error(SystemErrorText.message(error))
        status = ((error as? ClassifiedError)?.errorClass ?? .internalError).exitStatus
    }
    if status != 0 { throw ExitCode(status) }
}
