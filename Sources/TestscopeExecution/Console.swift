import Foundation

/// Where Testscope's own words go: the process's standard output and error, or memory (tests run
/// whole commands in-process and read what they printed).
public protocol Console: Sendable {
    /// Report text and results (stdout).
    func output(_ text: String)
    /// Notes, progress, warnings and errors (stderr).
    func diagnostics(_ text: String)
}

/// The process's own stdout and stderr; stdout is flushed before stderr is written so the two
/// interleave as they were produced.
public struct StandardConsole: Console {
    public init() {}

    // Once interrupted, only the interrupt's own line is printed (`Interruption.checkpoint`).
    public func output(_ text: String) {
        Interruption.checkpoint()
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    public func diagnostics(_ text: String) {
        Interruption.checkpoint()
        fflush(nil)  // all C streams: naming `stdout` is not concurrency-safe in Swift 6
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// A console that keeps everything written to it (tests).
public final class CapturedConsole: Console {
    private let state = Locked((output: "", diagnostics: ""))

    public init() {}

    public func output(_ text: String) { state.withLock { $0.output += text } }
    public func diagnostics(_ text: String) { state.withLock { $0.diagnostics += text } }

    /// What went to stdout.
    public var outputText: String { state.withLock { $0.output } }
    /// What went to stderr.
    public var diagnosticsText: String { state.withLock { $0.diagnostics } }
}
