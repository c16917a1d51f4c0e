import Foundation

/// Errors raised while locating tools, running processes or writing output files.
package enum ExecutionError: LocalizedError, Equatable {
    case toolNotFound(tool: String, searched: [String])
    case toolNotExecutable(path: String)
    case launchFailed(tool: String, reason: String)
    case toolFailed(tool: String, status: Int32, message: String)
    case cannotWrite(path: String, reason: String)
    case outputFolderNotWritable(path: String, reason: String)
    case outsideOutputFolder(path: String, folder: String)
    case symbolicLinkInOutputFolder(path: String, destination: String)

    package var errorDescription: String? {
        switch self {
        case let .toolNotFound(tool, searched):
            let places = searched.isEmpty ? "" : " (looked in: \(searched.joined(separator: ", ")))"
            return "cannot find \(tool)\(places); install a Swift toolchain or pass its path with --\(tool) / TESTSCOPE_\(tool.uppercased().replacingOccurrences(of: "-", with: "_"))"
        case let .toolNotExecutable(path):
            return "\(path) is not an executable file; pass the path of a working tool"
        case let .launchFailed(tool, reason):
            return "could not start \(tool): \(reason)"
        case let .toolFailed(tool, status, message):
            let detail = message.isEmpty ? "" : ": \(message)"
            return "\(tool) failed with exit status \(status)\(detail)"
        case let .cannotWrite(path, reason):
            return "cannot write \(path): \(reason); check that the output folder is writable"
        case let .outputFolderNotWritable(path, reason):
            return "cannot write into the output folder \(path): \(reason); choose another --output or make the folder writable"
        case let .outsideOutputFolder(path, folder):
            return "refusing to write \(path): it is outside the output folder \(folder)"
        case let .symbolicLinkInOutputFolder(path, destination):
            return "refusing to write into \(path): it is a symbolic link (to \(destination)) and Testscope never writes through one; remove the link or choose another --output"
        }
    }
}

extension ExecutionError: ClassifiedError {
    package var errorClass: ErrorClass {
        switch self {
        case .toolNotFound, .toolNotExecutable, .outsideOutputFolder, .symbolicLinkInOutputFolder, .cannotWrite, .outputFolderNotWritable: return .badInput
        case .launchFailed, .toolFailed: return .internalError
        }
    }
}
