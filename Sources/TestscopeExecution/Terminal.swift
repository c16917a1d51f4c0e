import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How Testscope talks to the user's terminal: colors, progress and diagnostics on stderr.
public struct Terminal: Sendable {
    public var useColor: Bool
    public var showProgress: Bool
    public var quiet: Bool

    public init(useColor: Bool, showProgress: Bool, quiet: Bool) {
        self.useColor = useColor
        self.showProgress = showProgress
        self.quiet = quiet
    }

    /// Colors only on a terminal, never with `NO_COLOR` or `TERM=dumb`; progress only on a terminal outside CI.
    public static func detect(quiet: Bool, noColor: Bool,
                              environment: [String: String] = ProcessInfo.processInfo.environment) -> Terminal {
        let stdoutTTY = isatty(STDOUT_FILENO) == 1
        let stderrTTY = isatty(STDERR_FILENO) == 1
        let colorAllowed = !noColor && environment["NO_COLOR"].map { $0.isEmpty } ?? true
            && environment["TERM"] != "dumb"
        let forced = environment["TESTSCOPE_FORCE_COLOR"] == "1"
        let inCI = environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false
        return Terminal(
            useColor: forced || (colorAllowed && stdoutTTY),
            showProgress: !quiet && stderrTTY && !inCI,
            quiet: quiet)
    }

    /// ANSI styles used by the text reports.
    public enum Style: String, Sendable {
        case red = "31", green = "32", yellow = "33", bold = "1", dim = "2"
    }

    public func styled(_ text: String, _ style: Style) -> String {
        useColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// A progress note on stderr, shown only on an interactive terminal.
    public func progress(_ message: String) {
        guard showProgress else { return }
        fflush(stdout)
        FileHandle.standardError.write(Data("testscope: \(message)\n".utf8))
    }

    /// A note on stderr that `--quiet` hides.
    public func note(_ message: String) {
        guard !quiet else { return }
        fflush(stdout)
        FileHandle.standardError.write(Data("testscope: \(message)\n".utf8))
    }

    /// A warning on stderr; always shown.
    public func warning(_ message: String) {
        fflush(stdout)
        FileHandle.standardError.write(Data("testscope: warning: \(message)\n".utf8))
    }

    /// An error line on stderr; always shown.
    public static func error(_ message: String) {
        fflush(stdout)
        FileHandle.standardError.write(Data("testscope: error: \(message)\n".utf8))
    }
}
