import Foundation
import TestscopeExecution
import TestscopeProfileData

/// Where the coverage model's records come from: an llvm-cov JSON export, or the native engine's
/// records of profiles and binaries. Files and functions are handed over as they are read; a file
/// `includeFile` rejects may be skipped without decoding.
package protocol CoverageRecordSource {
    /// What it is called in messages (a path).
    var name: String { get }
    /// The files the report lists as its inputs.
    var inputs: [String] { get }
    /// What read the coverage data, as the report's header names it (an export's: the llvm-cov that wrote it, when known).
    var reader: String { get }
    func read(includeFile: @escaping (String) -> Bool,
              onFile: @escaping (ExportFile) throws -> Void,
              onFunction: @escaping (ExportFunction) throws -> Void) throws
}

extension CoverageRecordSource {
    package var inputs: [String] { [name] }
    package var reader: String { "llvm-cov export" }
}

/// An `llvm-cov export` JSON document on disk.
package struct ExportDocument: CoverageRecordSource {
    package let url: URL
    package var name: String { url.path }
    /// The llvm-cov that wrote it, when Testscope ran it (nil: an export the user gave).
    package var writtenBy: String?
    package var reader: String { writtenBy.map { "llvm-cov export (\($0))" } ?? "llvm-cov export (given)" }

    package init(_ url: URL, writtenBy: String? = nil) {
        self.url = url
        self.writtenBy = writtenBy
    }

    package func read(includeFile: @escaping (String) -> Bool,
                     onFile: @escaping (ExportFile) throws -> Void,
                     onFunction: @escaping (ExportFunction) throws -> Void) throws {
        _ = try LLVMCovExportReader(includeFile: includeFile, onFile: onFile, onFunction: onFunction).read(url)
    }
}

/// Records already in memory (the native engine's, or a test's).
package struct RecordsInMemory: CoverageRecordSource {
    package let name: String
    package let inputs: [String]
    package var files: [ExportFile]
    package var functions: [ExportFunction]

    package init(name: String, inputs: [String]? = nil, files: [ExportFile], functions: [ExportFunction]) {
        self.name = name
        self.inputs = inputs ?? [name]
        self.files = files
        self.functions = functions
    }

    package func read(includeFile: @escaping (String) -> Bool,
                     onFile: @escaping (ExportFile) throws -> Void,
                     onFunction: @escaping (ExportFunction) throws -> Void) throws {
        for file in files where includeFile(file.filename) { try onFile(file) }
        for function in functions { try onFunction(function) }
    }
}

/// The native engine's function records, turned into export-shaped records only as the model
/// asks for them: the functions first (so that their names reach the demangler while the files'
/// segments are still being built), then the segments of the included files only (a package's test
/// files are never swept). What it hands over is what `RecordsInMemory(files:
/// NativeFileCoverage.files(functions), functions: exportFunctions)` would, less what `includeFile`
/// refuses.
///
/// The records are either evaluated already (tests) or still encoded (`EncodedFunctionRecords`, the
/// engine's own path): `readByFile` then evaluates them a batch of files at a time. It is read
/// once: `read` takes the records and lets them go when it returns, so that the model is built in
/// their memory; a second read is a bug.
package struct NativeRecordSource: CoverageRecordSource {
    package let name: String
    package var reader: String { "Testscope's native engine (no llvm-cov)" }
    package let inputs: [String]
    private let records: Locked<Records?>
    /// The binaries, in the order of their `binaryIndex` (for messages about them).
    private let binaries: [String]

    enum Records {
        case evaluated([CountedFunction])
        case encoded(EncodedFunctionRecords)
    }

    /// Files whose segments are built at once. 16, not 32: a batch's pages and JSON are held until it
    /// is written, and at 400 files the peak RSS of a JSON report was 29.9 MB against 31.0 MB (LCOV
    /// 29.3 against 29.5, HTML 30.4 against 30.7; median of 3), with no change in time measured.
    /// Batches of 8 took 1 MB less again, and a JSON report 15 % longer.
    static let batchSize = 16

    package init(name: String, inputs: [String]? = nil, functions: [CountedFunction]) {
        self.name = name
        self.inputs = inputs ?? [name]
        self.records = Locked(.evaluated(functions))
        self.binaries = []
    }

    /// Records still encoded, from `binaries` (paths, in the order the records number them).
    package init(name: String, inputs: [String]? = nil, encoded: EncodedFunctionRecords, binaries: [String]) {
        self.name = name
        self.inputs = inputs ?? [name]
        self.records = Locked(.encoded(encoded))
        self.binaries = binaries
    }

    package func read(includeFile: @escaping (String) -> Bool,
                     onFile: @escaping (ExportFile) throws -> Void,
                     onFunction: @escaping (ExportFunction) throws -> Void) throws {
        let functions: [CountedFunction]
        switch take() {
        case .evaluated(let evaluated): functions = evaluated
        case .encoded(let encoded):
            functions = try translatingErrors { try NativeFunctionRecords.build(encoded, positions: Array(0..<encoded.count)).functions }
        }
        // A function whose main file is refused is dropped by the model anyway: not converted.
        for function in functions {
            guard let main = function.mainFileID, includeFile(function.filenames[main]) else { continue }
            try onFunction(function.exportFunction)
        }
        try Self.files(of: consume functions, includeFile: includeFile, withRecords: false, perFile: { file, _ in file },
                       onBatch: { for file in $0 { try onFile(file) } })
    }

    /// What `read` hands over, file by file, as the model takes it: each included file's segments
    /// with the records of the functions defined in it (made on every core with the segments, from
    /// the records in place: no export-shaped copy, no second pass over the functions), passed
    /// through `perFile` on the same worker (the model's own work on a file), handed to `onFile` in
    /// order. Returns what evaluating encoded records dropped (say it: llvm-cov does not).
    /// `arrange` orders the included files (the model's order, so that each batch can be written as
    /// it is built); `names`, when given, gets every name the files' records may show before the
    /// first batch (`EncodedRecordStream`), and each record its `nameIndex`.
    func readByFile<T>(includeFile: (String) -> Bool, arrange: ([String]) -> [String] = { $0 }, names: DemangleSession? = nil,
                       perFile: (ExportFile, FileRecords) -> T, onBatch: (inout [T]) throws -> Void) throws -> NativeRecordDiagnostics {
        switch take() {
        case .evaluated(let functions):
            try Self.files(of: functions, includeFile: includeFile, arrange: arrange, names: names, withRecords: true,
                           perFile: perFile, onBatch: onBatch)
            return NativeRecordDiagnostics()
        case .encoded(let encoded):
            return try translatingErrors {
                try EncodedRecordStream(encoded: encoded, batchSize: Self.batchSize)
                    .files(includeFile: includeFile, arrange: arrange, names: names, withRecords: true, perFile: perFile, onBatch: onBatch)
            }
        }
    }

    /// The records, taken once.
    private func take() -> Records {
        guard let taken = records.withLock({ records in defer { records = nil }; return records }) else {
            preconditionFailure("NativeRecordSource is read once")
        }
        return taken
    }

    /// A record that cannot be decoded, in the coverage model's terms, naming its binary. A kind
    /// of mapping the engine does not read (`unsupported`) is found here only while the report is
    /// built, too late to fall back to llvm-cov by itself: the message says how.
    private func translatingErrors<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let failure as NativeFunctionRecords.DecodingFailure {
            let binary = failure.binaryIndex < binaries.count ? binaries[failure.binaryIndex] : name
            if let error = failure.error as? ProfileDataError, error.isUnsupported {
                throw CoverageError.unreadable(path: binary, reason: "\(error); the native coverage engine cannot read it: "
                    + "use --engine llvm-cov")
            }
            throw CoverageError.translated(failure.error, binary: binary)
        }
    }

    /// Each included file's segments (and, `withRecords`, its functions' records). Files are
    /// independent: built on every core, a batch at a time (so that only a batch's segments are
    /// held), handed over in order. A record's regions are let go after the last batch that reads
    /// them, so the records shrink while the model grows (the model's build was the peak of an
    /// 800-file HTML report, with every record's regions still held: 15 MB).
    private static func files<T>(of records: consuming [CountedFunction], includeFile: (String) -> Bool,
                                 arrange: ([String]) -> [String] = { $0 }, names: DemangleSession? = nil, withRecords: Bool,
                                 perFile: (ExportFile, FileRecords) -> T, onBatch: (inout [T]) throws -> Void) throws {
        var functions = records
        let index = FilenameIndex(functions)
        let included = arrange(NativeFileCoverage.uniqueSourceFiles(functions).filter(includeFile))
        var lastBatch = [Int32](repeating: -1, count: functions.count)
        for (position, filename) in included.enumerated() {
            for f in index.records(for: filename) { lastBatch[f] = Int32(position / Self.batchSize) }
        }
        // As `EncodedRecordStream`: the names of the records that name an included file, first.
        let nameIndex = names.map { names in functions.indices.map { lastBatch[$0] >= 0 ? names.add(functions[$0].name) : -1 } } ?? []
        Self.release(&functions, where: { lastBatch[$0] < 0 }, among: functions.indices)
        var start = 0
        while start < included.count {
            let batch = included[start..<min(start + Self.batchSize, included.count)]
            let built = Parallel.map(batch.count) { i -> T in
                let filename = batch[batch.startIndex + i]
                var builder = SegmentBuilder()
                var records = FileRecords()
                // Records read in place through the buffer: a copy of each (`functions[f]`) retained
                // and released its four arrays and name.
                functions.withUnsafeBufferPointer { all in
                    for f in index.records(for: filename) {
                        all[f].add(to: &builder, records: &records, withRecords: withRecords, of: filename, order: Int64(f),
                                   nameIndex: nameIndex.isEmpty ? -1 : nameIndex[f])
                    }
                }
                return perFile(ExportFile(filename: filename, segments: builder.build()), records)
            }
            let batchNumber = Int32(start / Self.batchSize)
            for filename in batch {
                Self.release(&functions, where: { lastBatch[$0] == batchNumber }, among: index.records(for: filename))
            }
            var files = built
            try onBatch(&files)
            start += batch.count
        }
    }

    /// Lets go of the regions of the records among `candidates` that `done` picks.
    private static func release(_ functions: inout [CountedFunction], where done: (Int) -> Bool, among candidates: some Sequence<Int>) {
        for f in candidates where done(f) && !functions[f].regions.isEmpty {
            functions[f].regions = []
            functions[f].branches = []
        }
    }
}

extension CountedFunction {
    /// The record's name and arrays let go, in place (a slot to be reused): assigning an empty
    /// record instead copied it, and retained what it holds.
    mutating func letGoOfContents() {
        name = ""
        filenames = []
        regions = []
        branches = []
    }

    /// Adds the record's regions in `filename` to `builder` and, `withRecords`, its function record to
    /// `records` when `filename` is its main file. False when the record does not name the file.
    @discardableResult
    func add(to builder: inout SegmentBuilder, records: inout FileRecords, withRecords: Bool, of filename: String, order: Int64,
             nameIndex: Int32 = -1) -> Bool {
        let ids = FileIDs(of: filenames, equalTo: filename)
        guard !ids.isEmpty else { return false }
        regions.withUnsafeBufferPointer { regions in
            for region in regions where ids.contains(region.fileID) { builder.add(region) }
            if withRecords, let main = Self.mainFileID(filenameCount: filenames.count, regions: regions), ids.contains(UInt32(main)),
               var record = FunctionRecord(name: name, executionCount: executionCount, regions: regions, mainID: main, pool: records.pool) {
                record.order = order
                record.nameIndex = nameIndex
                records.records.append(consume record)
            }
        }
        return true
    }
}
