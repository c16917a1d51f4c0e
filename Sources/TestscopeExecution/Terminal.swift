import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How Testscope talks to the user: colors, progress and diagnostics (stderr) and results (stdout),
/// through a `Console` (the process's own streams, or memory in tests).
public struct Terminal: Sendable {
    public var useColor: Bool
    public var showProgress: Bool
    public var quiet: Bool
    /// `--verbose`: the build's and the tests' raw lines instead of the live view.
    public var verbose: Bool
    /// The screen's width in columns when known (`$COLUMNS`, else the terminal's); nil when not a terminal.
    public var columns: Int?
    public var console: any Console

    public init(useColor: Bool, showProgress: Bool, quiet: Bool, verbose: Bool = false, columns: Int? = nil,
                console: any Console = StandardConsole()) {
        self.useColor = useColor
        self.showProgress = showProgress
        self.quiet = quiet
        self.verbose = verbose
        self.columns = columns
        self.console = console
    }

    /// Colors only on a terminal, never with `NO_COLOR` or `TERM=dumb`; progress (a status line redrawn in
    /// place) only on a terminal outside CI and not with `TERM=dumb`.
    public static func detect(quiet: Bool, noColor: Bool, verbose: Bool = false,
                              environment: [String: String] = ProcessInfo.processInfo.environment,
                              console: any Console = StandardConsole()) -> Terminal {
        let stdoutTTY = isatty(STDOUT_FILENO) == 1 && console is StandardConsole
        let stderrTTY = isatty(STDERR_FILENO) == 1 && console is StandardConsole
        let colorAllowed = !noColor && environment["NO_COLOR"].map { $0.isEmpty } ?? true
            && environment["TERM"] != "dumb"
        let forced = environment["TESTSCOPE_FORCE_COLOR"] == "1"
        let inCI = environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false
        let dumb = environment["TERM"] == "dumb"
        return Terminal(
            useColor: forced || (colorAllowed && stdoutTTY),
            showProgress: !quiet && stderrTTY && !inCI && !dumb,
            quiet: quiet, verbose: verbose && !quiet,
            columns: stdoutTTY || stderrTTY ? screenColumns(environment) : nil, console: console)
    }

    /// `$COLUMNS` when set to a number, else the width the terminal reports (`TIOCGWINSZ`), else nil.
    public static func screenColumns(_ environment: [String: String]) -> Int? {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        var size = winsize()
        for fd in [STDOUT_FILENO, STDERR_FILENO] where ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return nil
    }

    /// The width screens are fitted to: the terminal's, or 80 when it is not known.
    public var width: Int { columns ?? 80 }

    /// ANSI styles used by the text reports.
    public enum Style: String, Sendable {
        case red = "31", green = "32", yellow = "33", bold = "1", dim = "2"
    }

    public func styled(_ text: String, _ style: Style) -> String {
        useColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Results on stdout, as they are (no newline added).
    public func print(_ text: String) {
        console.output(text)
    }

    /// A line of results on stdout.
    public func printLine(_ line: String) {
        console.output(line + "\n")
    }

    /// A progress note on stderr, shown only on an interactive terminal: one line redrawn in place,
    /// cut to the width (a wrapped line could not be erased), gone once anything else is printed.
    public func progress(_ message: String) {
        guard showProgress else { return }
        console.transient(String("testscope: \(message)".prefix(max(10, width - 1))))
    }

    /// A note on stderr that `--quiet` hides.
    public func note(_ message: String) {
        guard !quiet else { return }
        console.diagnostics("testscope: \(message)\n")
    }

    /// A `testscope: …` line on stderr that `--quiet` does not hide (a gate's verdict).
    public func diagnosticLine(_ message: String) {
        console.diagnostics("testscope: \(message)\n")
    }

    /// An error line on stderr; always shown.
    public func error(_ message: String) {
        console.diagnostics("testscope: error: \(message)\n")
    }

    /// A diagnostic value, rendered the one way diagnostics are shown: notes obey `--quiet`, warnings
    /// and errors are always shown (a warning has no other way out: it is a value until here).
    public func emit(_ diagnostic: Diagnostic) {
        switch diagnostic.kind {
        case .note: note(diagnostic.description)
        case .warning: console.diagnostics("testscope: warning: \(diagnostic.description)\n")
        case .error: error(diagnostic.description)
        }
    }

    /// An error line on the process's stderr, for the few places that have no terminal (argument parsing).
    public static func error(_ message: String) {
        StandardConsole().diagnostics("testscope: error: \(message)\n")
    }
}
