/// A warning or note about the inputs or the run, as a value: what it is about (file, line) and
/// what to do; rendered once, by `Terminal.emit` (and by the reports that list warnings).
public struct Diagnostic: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// How serious it is.
    public enum Kind: String, Sendable {
        case note, warning, error
    }

    public var kind: Kind
    public var message: String
    /// The file it is about, as the user knows it (relative to the package root when inside it).
    public var file: String?
    public var line: Int?

    public init(_ kind: Kind, _ message: String, file: String? = nil, line: Int? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
    }

    public static func warning(file: String? = nil, line: Int? = nil, _ message: String) -> Diagnostic {
        Diagnostic(.warning, message, file: file, line: line)
    }

    public static func note(file: String? = nil, line: Int? = nil, _ message: String) -> Diagnostic {
        Diagnostic(.note, message, file: file, line: line)
    }

    /// `file:line: message`, the form compilers and editors link.
    public var description: String {
        guard let file else { return message }
        return "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}

/// Whose fault an error is, which decides its exit status: every module's error says which class
/// each of its cases is in, so the command line maps classes, not cases.
public enum ErrorClass: Sendable {
    /// The command line was wrong (64).
    case usage
    /// Something the user passed or the build produced is missing or invalid (65).
    case badInput
    /// The package's tests or build failed (1).
    case testsFailed
    /// Testscope itself, or a tool it runs, failed unexpectedly (70).
    case internalError

    /// The documented exit status of the class (README "Exit status").
    public var exitStatus: Int32 {
        switch self {
        case .usage: return 64
        case .badInput: return 65
        case .testsFailed: return 1
        case .internalError: return 70
        }
    }
}

/// An error with a class; its `errorDescription` is one line in Testscope's words.
public protocol ClassifiedError: Error {
    var errorClass: ErrorClass { get }
}
