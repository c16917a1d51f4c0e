import Foundation
import TestscopeExecution

/// Testscope's commands as a library: a request in, an `Outcome` out; everything the user reads
/// goes through `terminal` (its console is the process's streams, or memory in tests) and every
/// file into the request's output folder.
public struct Pipeline: Sendable {
    public var terminal: Terminal
    /// The environment the commands read (GitHub Actions variables, `TESTSCOPE_SWIFT`, …).
    public var environment: [String: String]

    public init(terminal: Terminal, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.terminal = terminal
        self.environment = environment
    }
}
