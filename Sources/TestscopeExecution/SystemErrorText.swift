import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Foundation's, the C library's and libxml2's errors in Testscope's words: the one place where a
/// system error becomes text, so no bare `NSError` description ("The operation could not be
/// completed. (NSCocoaErrorDomain error 512.)") reaches the user.
package enum SystemErrorText {
    /// A whole message for any error: ours say what, which file and what to do; anything else is
    /// translated and said to be Testscope's bug (status 70).
    package static func message(_ error: Error) -> String {
        if error is ClassifiedError {
            if let text = (error as? LocalizedError)?.errorDescription { return text }
            return String(describing: error)
        }
        return "internal error (\(reason(error))); please report it with the command that caused it"
    }

    /// Why a file operation failed, as a short clause ("permission denied", "a file is in the way").
    package static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return posix(Int32(ns.code)) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return posix(Int32(underlying.code))
        }
        if ns.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: ns.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or folder"
            case .fileWriteFileExists: return "a file of that name is in the way (a folder is needed there)"
            case .fileWriteNoPermission, .fileReadNoPermission: return "permission denied"
            case .fileWriteOutOfSpace: return "no space left on the device"
            case .fileWriteVolumeReadOnly: return "the file system is read-only"
            case .fileWriteInvalidFileName, .fileReadInvalidFileName: return "the name is not a valid file name"
            case .fileReadCorruptFile: return "the file is damaged"
            case .fileReadInapplicableStringEncoding: return "the file is not text in the expected encoding (UTF-8)"
            case .fileWriteUnknown: return "it cannot be created (is part of the path a file, or not writable?)"
            case .fileReadUnknown: return "it cannot be read"
            default: break
            }
        }
        if let reason = ns.localizedFailureReason, !reason.isEmpty { return clause(reason) }
        return "\(ns.domain) error \(ns.code)"
    }

    /// libxml2's error numbers (Foundation's `XMLParser.parserError` codes) as a clause.
    package static func xmlReason(code: Int, line: Int) -> String {
        let what: String
        switch code {
        case 4: what = "the document is empty"
        case 5, 85, 86: what = "the document ends too early or has extra content after its root element"
        case 9: what = "it contains a character XML does not allow"
        case 26: what = "it uses an entity that is not declared"
        case 29, 30: what = "it uses an external entity (refused: Testscope never reads other files through XML entities)"
        case 88, 89, 90: what = "its entities expand in a loop or without bound (an entity bomb; refused)"
        case 76: what = "a closing tag does not match the element it closes"
        case 77: what = "an element is never closed"
        case 31, 32: what = "its encoding is not supported (use UTF-8)"
        default: what = "it is not well-formed XML (libxml2 error \(code))"
        }
        return line > 0 ? "\(what), line \(line)" : what
    }

    /// The C library's text for `errno`, lower-cased like the rest of a Testscope message.
    package static func posix(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return clause(String(cString: text))
    }

    private static func clause(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first, text.dropFirst().first?.isLowercase ?? true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
