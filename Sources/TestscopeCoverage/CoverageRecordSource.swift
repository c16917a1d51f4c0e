import Foundation

/// Where the coverage model's records come from: an llvm-cov JSON export, or the native engine's
/// records of profiles and binaries. Files and functions are handed over as they are read; a file
/// `includeFile` rejects may be skipped without decoding.
public protocol CoverageRecordSource {
    /// What the report lists as its input (a path).
    var name: String { get }
    func read(includeFile: @escaping (String) -> Bool,
              onFile: @escaping (ExportFile) throws -> Void,
              onFunction: @escaping (ExportFunction) throws -> Void) throws
}

/// An `llvm-cov export` JSON document on disk.
public struct ExportDocument: CoverageRecordSource {
    public let url: URL
    public var name: String { url.path }

    public init(_ url: URL) { self.url = url }

    public func read(includeFile: @escaping (String) -> Bool,
                     onFile: @escaping (ExportFile) throws -> Void,
                     onFunction: @escaping (ExportFunction) throws -> Void) throws {
        _ = try LLVMCovExportReader(includeFile: includeFile, onFile: onFile, onFunction: onFunction).read(url)
    }
}

/// Records already in memory (the native engine's, or a test's).
public struct RecordsInMemory: CoverageRecordSource {
    public let name: String
    public var files: [ExportFile]
    public var functions: [ExportFunction]

    public init(name: String, files: [ExportFile], functions: [ExportFunction]) {
        self.name = name
        self.files = files
        self.functions = functions
    }

    public func read(includeFile: @escaping (String) -> Bool,
                     onFile: @escaping (ExportFile) throws -> Void,
                     onFunction: @escaping (ExportFunction) throws -> Void) throws {
        for file in files where includeFile(file.filename) { try onFile(file) }
        for function in functions { try onFunction(function) }
    }
}
