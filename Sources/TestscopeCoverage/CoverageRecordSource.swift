import Foundation

/// Where the coverage model's records come from: an llvm-cov JSON export, or the native engine's
/// records of profiles and binaries. Files and functions are handed over as they are read; a file
/// `includeFile` rejects may be skipped without decoding.
public protocol CoverageRecordSource {
    /// What it is called in messages (a path).
    var name: String { get }
    /// The files the report lists as its inputs.
    var inputs: [String] { get }
    func read(includeFile: @escaping (String) -> Bool,
              onFile: @escaping (ExportFile) throws -> Void,
              onFunction: @escaping (ExportFunction) throws -> Void) throws
}

extension CoverageRecordSource {
    public var inputs: [String] { [name] }
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
    public let inputs: [String]
    public var files: [ExportFile]
    public var functions: [ExportFunction]

    public init(name: String, inputs: [String]? = nil, files: [ExportFile], functions: [ExportFunction]) {
        self.name = name
        self.inputs = inputs ?? [name]
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
