import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// The one way Testscope writes to its own standard output and error (the console, the build's echo,
/// timings): each piece with `write(2)`. A stream whose reader is gone (`testscope … | head`, EPIPE) is
/// dropped quietly from then on and the command goes on to its end and its own exit status: its
/// reports are files, the screen is a copy (Foundation's `FileHandle.write` trapped there: status 132).
package enum StandardStreams {
    /// Streams found closed: nothing more is written to them.
    private static let closed = Locked<Set<Int32>>([])

    /// A write to a closed pipe is an error (EPIPE) for the writer to handle, not a fatal SIGPIPE
    /// (children get SIGPIPE's default back: `Spawn`). The CLI sets it first, for what ArgumentParser
    /// prints itself (`--help`, `--version`: stdio, whose failed flush at exit is silent).
    package static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    package static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }

    package static func write(_ fd: Int32, _ data: Data) {
        data.withUnsafeBytes { write(fd, $0) }
    }

    package static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        _ = ignoreSIGPIPE
        guard !bytes.isEmpty, !closed.withLock({ $0.contains(fd) }) else { return }
        // Any failure (EPIPE, a closed descriptor, a full disk behind a redirection) ends this stream only.
        if writeAll(fd, bytes) != 0 { closed.withLock { _ = $0.insert(fd) } }
    }
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
        StandardStreams.write(STDOUT_FILENO, text)
    }

    public func diagnostics(_ text: String) {
        Interruption.checkpoint()
        fflush(nil)  // all C streams: naming `stdout` is not concurrency-safe in Swift 6
        Self.endTransientLine()
        StandardStreams.write(STDERR_FILENO, text)
    }

    /// Replaces the transient line (if any) with `text`, left without a newline: a step of the
    /// reporting that needs no record once the next one starts (the final screen starts clean).
    public func transient(_ text: String) {
        Interruption.checkpoint()
        fflush(nil)
        Self.transientShown.withLock { shown in
            StandardStreams.write(STDERR_FILENO, "\r\u{1B}[K\(text)")
            shown = true
        }
    }

    /// Erases the transient line, so that what comes next (or the shell's prompt) starts a clean line.
    public static func endTransientLine() {
        transientShown.withLock { shown in
            guard shown else { return }
            StandardStreams.write(STDERR_FILENO, "\r\u{1B}[K")
            shown = false
        }
    }
}

/// A console that keeps everything written to it (tests).
package final class CapturedConsole: Console {
    private let state = Locked((output: "", diagnostics: ""))

    package init() {}

    package func output(_ text: String) { state.withLock { $0.output += text } }
    package func diagnostics(_ text: String) { state.withLock { $0.diagnostics += text } }

    /// What went to stdout.
    package var outputText: String { state.withLock { $0.output } }
    /// What went to stderr.
    package var diagnosticsText: String { state.withLock { $0.diagnostics } }
}
