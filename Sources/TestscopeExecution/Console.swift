import Foundation

/// Where Testscope's own words go: the process's standard output and error, or memory (tests run
/// whole commands in-process and read what they printed).
public protocol Console: Sendable {
    /// Report text and results (stdout).
    func output(_ text: String)
    /// Notes, progress, warnings and errors (stderr).
    func diagnostics(_ text: String)
    /// A progress line on stderr that the next output replaces (a terminal only; elsewhere a line).
    func transient(_ text: String)
}

extension Console {
    public func transient(_ text: String) { diagnostics(text + "\n") }
}

/// The process's own stdout and stderr; stdout is flushed before stderr is written so the two
/// interleave as they were produced.
public struct StandardConsole: Console {
    public init() {}

    /// Whether a transient line is on stderr, not yet ended by a newline.
    private static let transientShown = Locked(false)

    // Once interrupted, only the interrupt's own line is printed (`Interruption.checkpoint`).
    public func output(_ text: String) {
        Interruption.checkpoint()
        Self.endTransientLine()
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    public func diagnostics(_ text: String) {
        Interruption.checkpoint()
        fflush(nil)  // all C streams: naming `stdout` is not concurrency-safe in Swift 6
        Self.endTransientLine()
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Replaces the transient line (if any) with `text`, left without a newline: a step of the
    /// reporting that needs no record once the next one starts (the final screen starts clean).
    public func transient(_ text: String) {
        Interruption.checkpoint()
        fflush(nil)
        Self.transientShown.withLock { shown in
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
            shown = true
        }
    }

    /// Erases the transient line, so that what comes next (or the shell's prompt) starts a clean line.
    public static func endTransientLine() {
        transientShown.withLock { shown in
            guard shown else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            shown = false
        }
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
