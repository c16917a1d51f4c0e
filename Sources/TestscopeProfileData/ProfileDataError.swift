import TestscopeExecution

/// Why a native coverage reader refused its input: the caller falls back to llvm-cov on
/// `.unsupported`, and warns and skips the file on `.truncated`/`.corrupt`.
package enum ProfileDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A valid input in a format or mode this reader was not taught (another version, variant
    /// bits, byte order, pointer width, correlation mode, MC/DC, compressed sections, not ELF, …).
    case unsupported(String)
    /// The input ends before a field or a section it announces.
    case truncated(String)
    /// The input is malformed (bad sizes, offsets, indices, compressed payloads, …).
    case corrupt(String)
    /// An ELF binary without llvm coverage sections (built without `--enable-code-coverage`).
    case noCoverageMapping(String)
    /// The file could not be opened or read.
    case io(String)
    /// A Mach-O binary without the architecture asked for, or a universal one whose slice cannot be chosen.
    case architecture(String)

    package var description: String {
        switch self {
        case .unsupported(let why): return "unsupported: \(why)"
        case .truncated(let why): return "truncated: \(why)"
        case .corrupt(let why): return "corrupt: \(why)"
        case .noCoverageMapping(let why): return "no coverage mapping: \(why)"
        case .io(let why): return "i/o error: \(why)"
        case .architecture(let why): return why
        }
    }

    /// True when the caller should fall back to llvm's own tools rather than report a bad file.
    package var isUnsupported: Bool {
        if case .unsupported = self { return true }
        return false
    }
}

extension ProfileDataError: ClassifiedError {
    /// A profile or binary the user passed or the build produced: bad input (an unsupported one makes
    /// the caller fall back to llvm-cov before it reaches the user).
    package var errorClass: ErrorClass { .badInput }
}
