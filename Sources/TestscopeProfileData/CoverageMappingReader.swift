import TestscopeExecution

/// A binary's coverage mapping, decoded: one `MappedFunction` per NameRef, in covfun order.
package struct CoverageMapping: Sendable {
    package var functions: [MappedFunction]
    /// The binary's GNU build ID, lower-case hex (compare with the profiles' binary IDs).
    package var buildID: String?
    /// Covfun records dropped by llvm's per-binary NameRef dedup (a later duplicate, or a dummy).
    package var duplicateRecords: Int
}

/// A binary's function records with their mappings still encoded: each is decoded where it is
/// used and dropped after, so the decoded regions of every function never exist at once (at 400
/// files they were 25 MB of the peak).
package struct CoverageMappingRecords: Sendable {
    /// A record's header: no reference inside, so that reading one copies no counted reference.
    struct Record: Sendable {
        var nameRef: UInt64
        var funcHash: UInt64
        /// Its filenames: `filenameLists[filenameList]` (a `[String]` here was retained and released
        /// at each read of a record, 212,000 times at 400 files).
        var filenameList: UInt32
        /// How many filenames that list has.
        var filenameCount: UInt32
        /// The encoded mapping's bytes in `covfun` (32-bit: 32 bytes a record with the name's span).
        var mappingStart: UInt32
        var mappingEnd: UInt32
        /// The PGO name's bytes in `nameBytes`; `nameLength` is `absentName` when the names section
        /// has no name with this NameRef. Found once, when the records are read: a hash table from
        /// NameRef to name held for the whole report was 0.85 MB at 400 files, and a lookup in it
        /// for every use of a name.
        var nameStart: UInt32 = 0
        var nameLength: UInt32 = Record.absentName

        static let absentName = UInt32.max

        var hasName: Bool { nameLength != Self.absentName }
    }

    /// `__llvm_covfun` (several sections one after the other, each padded to 8 bytes).
    let covfun: [UInt8]
    let records: [Record]
    /// The covmap's filename lists that records name (`Record.filenameList`).
    let filenameLists: [[String]]
    /// The names section's names, inflated, one after the other (`pgoName(at:)`).
    package let nameBytes: [UInt8]
    /// The binary's GNU build ID, lower-case hex (compare with the profiles' binary IDs).
    package let buildID: String?
    /// Covfun records dropped by llvm's per-binary NameRef dedup (a later duplicate, or a dummy).
    package let duplicateRecords: Int
    package let binaryIndex: Int

    /// The number of kept records, in covfun order.
    package var count: Int { records.count }

    /// Record `index`, decoded.
    package func function(at index: Int) throws -> MappedFunction {
        var cache = FilenameListCache()
        return try function(at: index, cache: &cache)
    }

    /// The same, sharing the filenames array with the previous record decoded through `cache` when
    /// both pick the same names of the same list (the functions of one source file follow each
    /// other): one array per file instead of one per function (70,874 at 800 files).
    package func function(at index: Int, cache: inout FilenameListCache) throws -> MappedFunction {
        var scratch = MappingDecoder.Decoded()
        return try function(at: index, cache: &cache, scratch: &scratch)
    }

    /// The same, decoded into `scratch`'s storage: the returned function shares its arrays, so a
    /// caller that drops it before the next record decodes every record of a chunk into one storage.
    package func function(at index: Int, cache: inout FilenameListCache, scratch: inout MappingDecoder.Decoded) throws -> MappedFunction {
        let header = try decode(at: index, cache: &cache, scratch: &scratch)
        return MappedFunction(
            nameRef: header.nameRef, pgoName: header.pgoName, funcHash: header.funcHash, filenames: header.filenames,
            expressions: scratch.expressions, regions: scratch.regions, binaryIndex: binaryIndex)
    }

    /// Record `index` decoded into `scratch` (its regions and expressions stay there; nothing else
    /// is built): what `function(at:cache:scratch:)` returns, without a `MappedFunction` to copy
    /// and destroy per record, or a retain of `scratch`'s arrays (which made them shared).
    package func decode(at index: Int, cache: inout FilenameListCache, scratch: inout MappingDecoder.Decoded) throws
        -> (nameRef: UInt64, pgoName: String?, funcHash: UInt64, filenames: [String]) {
        let header = try decodeMapping(at: index, cache: &cache, scratch: &scratch)
        return (header.nameRef, pgoName(at: index), header.funcHash, header.filenames)
    }

    /// `decode(at:cache:scratch:)` without the PGO name (`pgoName(at:)` reads it).
    package func decodeMapping(at index: Int, cache: inout FilenameListCache, scratch: inout MappingDecoder.Decoded) throws
        -> (nameRef: UInt64, funcHash: UInt64, filenames: [String]) {
        let record = records[index]
        try MappingDecoder.decode(
            try ByteReader(covfun, start: Int(record.mappingStart), end: Int(record.mappingEnd), context: "coverage mapping"),
            filenameCount: Int(record.filenameCount), into: &scratch)
        return (record.nameRef, record.funcHash, cache.filenames(of: record, in: self, scratch.fileIndices))
    }

    /// Record `index`'s NameRef, function hash, and whether the names section has a non-empty name
    /// for it: what llvm-cov's record loading checks before it evaluates anything.
    package func header(at index: Int) -> (nameRef: UInt64, funcHash: UInt64, isNamed: Bool) {
        let record = records[index]
        return (record.nameRef, record.funcHash, record.hasName && record.nameLength > 0)
    }

    /// Whether the names section has record `index`'s PGO name.
    package func hasPGOName(at index: Int) -> Bool { records[index].hasName }

    /// Record `index`'s PGO name (nil when the names section lacks it).
    package func pgoName(at index: Int) -> String? { name(of: records[index]) }

    func name(of record: Record) -> String? {
        guard record.hasName else { return nil }
        return String(decoding: nameBytes[Int(record.nameStart)..<Int(record.nameStart) + Int(record.nameLength)], as: UTF8.self)
    }

    /// Record `index`'s filenames, read from its file-id map only (its regions are not decoded);
    /// `indices` is scratch storage.
    package func filenames(at index: Int, cache: inout FilenameListCache, indices: inout [Int]) throws -> [String] {
        let record = records[index]
        let listCount = Int(record.filenameCount)
        try MappingDecoder.fileIndices(
            try ByteReader(covfun, start: Int(record.mappingStart), end: Int(record.mappingEnd), context: "coverage mapping"),
            filenameCount: listCount, into: &indices)
        return cache.filenames(of: record, in: self, indices)
    }

    /// Every record decoded (on every core); the first error in covfun order is thrown.
    package func decodedAll() throws -> CoverageMapping {
        let functions = try Parallel.chunkedMap(count) { i in Result { try function(at: i) } }.map { try $0.get() }
        return CoverageMapping(functions: functions, buildID: buildID, duplicateRecords: duplicateRecords)
    }
}

/// The last function's filenames, for the next function of the same file (`CoverageMappingRecords.function(at:cache:)`).
package struct FilenameListCache {
    private var indices: [Int] = []
    private var names: [String] = []
    /// The binary and filename list of the names kept by `filenames(of:in:_:)`.
    private var binary = -1
    private var listIndex: UInt32 = 0

    package init() {}

    /// The names `indices` picks from `record`'s filename list: the last ones when the list and
    /// the picks are the same (no reference to the list taken to tell).
    mutating func filenames(of record: CoverageMappingRecords.Record, in records: CoverageMappingRecords, _ indices: [Int]) -> [String] {
        if binary == records.binaryIndex, listIndex == record.filenameList, record.filenameCount > 0, indices == self.indices { return names }
        binary = records.binaryIndex
        listIndex = record.filenameList
        self.indices = indices
        names = records.filenameLists.withUnsafeBufferPointer { lists in indices.map { lists[Int(record.filenameList)][$0] } }
        return names
    }
}

/// Reads `__llvm_covmap`/`__llvm_covfun` (mapping versions 4–7, header values 3–6) as
/// `VersionedCovMapFuncRecordReader` and `RawCoverageFilenamesReader` do.
package enum CoverageMappingReader {
    /// Header values: 3 = Version4 (covfun section) … 6 = Version7 (MC/DC), the toolchain's current.
    package static let supportedVersions: ClosedRange<UInt32> = 3...6

    /// Reads the mapping of the ELF or Mach-O binary at `path`, reading only its coverage sections.
    package static func read(binaryAt path: String, binaryIndex: Int = 0, architecture: String? = nil) throws -> CoverageMapping {
        try records(binaryAt: path, binaryIndex: binaryIndex, architecture: architecture).decodedAll()
    }

    /// The function records of the ELF or Mach-O binary at `path` (a universal file's slice of
    /// `architecture`, else the host's, else the only one), each decoded only when asked for.
    package static func records(binaryAt path: String, binaryIndex: Int = 0, architecture: String? = nil) throws -> CoverageMappingRecords {
        let elf = try ELFFile(path: path, architecture: architecture)
        guard let covmap = elf.section(named: "__llvm_covmap") else {
            throw ProfileDataError.noCoverageMapping("\(path) has no __llvm_covmap section (built without coverage?)")
        }
        guard elf.sections.filter({ $0.name == "__llvm_covmap" }).count == 1 else {
            throw ProfileDataError.corrupt("\(path): more than one __llvm_covmap section")
        }
        let covfunSections = elf.sections.filter { $0.name == "__llvm_covfun" }
        var names = elf.section(named: "__llvm_prf_names")
        if names == nil || names?.size == 0 { names = elf.section(named: "__llvm_covnames") }
        for section in [covmap] + covfunSections + (names.map { [$0] } ?? []) where section.isCompressed {
            throw ProfileDataError.unsupported("compressed ELF section \(section.name)")
        }
        // MC/DC bitmaps: said here, before any record is decoded (records are decoded a batch of
        // files at a time while the report is built, too late to fall back to llvm-cov).
        if let bits = elf.section(named: "__llvm_prf_bits"), bits.size > 0 {
            throw ProfileDataError.unsupported("MC/DC regions (clang -fcoverage-mcdc: \(path) has __llvm_prf_bits)")
        }
        let covfun = try elf.bytes(of: covfunSections, aligningEachTo: 8)
        let namesBytes = try names.map { try elf.bytes(of: $0) } ?? []
        return try records(covmap: try elf.bytes(of: covmap), covfun: covfun, names: namesBytes,
                           buildID: try elf.buildID(), binaryIndex: binaryIndex)
    }

    /// Decodes the raw section bytes (the entry point for tests and fuzzing).
    package static func read(covmap: [UInt8], covfun: [UInt8], names: [UInt8], buildID: String? = nil,
                            binaryIndex: Int = 0) throws -> CoverageMapping {
        try records(covmap: covmap, covfun: covfun, names: names, buildID: buildID, binaryIndex: binaryIndex).decodedAll()
    }

    /// The records of the raw section bytes, headers and names checked, mappings not yet decoded.
    package static func records(covmap: [UInt8], covfun: [UInt8], names: [UInt8], buildID: String? = nil,
                               binaryIndex: Int = 0) throws -> CoverageMappingRecords {
        let fileRanges = try readCovmap(covmap)
        guard covfun.count <= Int(UInt32.max) else { throw ProfileDataError.unsupported("__llvm_covfun of \(covfun.count) bytes") }
        // insertFunctionRecordIfNeeded: first record per NameRef wins, unless it is a dummy and a
        // later one is not; the replacement keeps the first one's position.
        // Sized for every record at once (a pass over the headers): grown by doubling, the records and
        // their index were copied while the names were inflated, the peak of reading (4 MB at 800 files).
        let recordCount = countRecords(covfun)
        var records: [CoverageMappingRecords.Record] = []
        records.reserveCapacity(recordCount)
        var indexOfName = UInt64Index(minimumCapacity: recordCount)
        var duplicates = 0
        // A binary's records come a translation unit at a time, each run sharing one filenames ref:
        // the last lookup is reused (a dictionary lookup a record was 7 M instructions at 400 files,
        // on the thread that reads the mapping while the other core waits).
        var lastRef: UInt64? = nil
        var lastList: UInt32?? = nil
        var lastCount: UInt32 = 0
        // The filename lists the records name, each once, by the order they are first named.
        var lists: [[String]] = []
        var listOfRef: [UInt64: UInt32] = [:]
        var reader = ByteReader(covfun, context: "__llvm_covfun")
        while !reader.isAtEnd {
            let nameRef = try reader.u64("NameRef")
            let dataSize = try reader.u32("DataSize")
            let funcHash = try reader.u64("FuncHash")
            let filenamesRef = try reader.u64("FilenamesRef")
            let start = reader.offset
            try reader.skip(Int(dataSize), "encoded mapping")
            reader.align(to: 8)
            if filenamesRef != lastRef {
                lastRef = filenamesRef
                switch fileRanges[filenamesRef] {
                case nil: lastList = nil
                case .some(nil): lastList = .some(nil)
                case .some(.some(let filenames)):
                    lastCount = UInt32(filenames.count)
                    if let known = listOfRef[filenamesRef] {
                        lastList = known
                    } else {
                        listOfRef[filenamesRef] = UInt32(lists.count)
                        lastList = UInt32(lists.count)
                        lists.append(filenames)
                    }
                }
            }
            guard let list = lastList else {
                throw ProfileDataError.corrupt("__llvm_covfun: filenames ref 0x\(String(filenamesRef, radix: 16)) not in __llvm_covmap")
            }
            // A hash collision between different filename lists: llvm skips such functions.
            guard let filenameList = list else { continue }
            let record = CoverageMappingRecords.Record(nameRef: nameRef, funcHash: funcHash, filenameList: filenameList,
                                                       filenameCount: lastCount,
                                                       mappingStart: UInt32(start), mappingEnd: UInt32(start + Int(dataSize)))
            guard let existing = indexOfName[nameRef] else {
                indexOfName[nameRef] = Int32(records.count)
                records.append(record)
                continue
            }
            duplicates += 1
            let old = records[Int(existing)]
            if try isDummy(old, covfun), try !isDummy(record, covfun) { records[Int(existing)] = record }
        }
        // Let go before the names are inflated and hashed (0.85 MB at 400 files, the peak of reading).
        indexOfName = UInt64Index()
        let nameTable = try ProfileNames.table(names, context: "__llvm_prf_names")
        // Each record's name found now, on every core; the table's index is let go with it.
        records.withUnsafeMutableBufferPointer { records in
            let ranges = Parallel.chunks(records.count, minimumChunk: 4_096)
            _ = Parallel.map(ranges.count) { c in
                for i in ranges[c] {
                    guard let span = nameTable.span(of: records[i].nameRef) else { continue }
                    records[i].nameStart = span.start
                    records[i].nameLength = span.count
                }
            }
        }
        let kept = records.trimmed()
        return CoverageMappingRecords(covfun: covfun, records: kept, filenameLists: lists, nameBytes: nameTable.bytes, buildID: buildID,
                                      duplicateRecords: duplicates, binaryIndex: binaryIndex)
    }

    /// How many records `covfun` holds (up to the first header that does not fit: the reading says why).
    private static func countRecords(_ covfun: [UInt8]) -> Int {
        var reader = ByteReader(covfun, context: "__llvm_covfun")
        var count = 0
        while !reader.isAtEnd {
            guard (try? reader.skip(8)) != nil, let dataSize = try? reader.u32("DataSize"),
                  (try? reader.skip(16 + Int(dataSize))) != nil else { break }
            reader.align(to: 8)
            count += 1
        }
        return count
    }

    private static func isDummy(_ record: CoverageMappingRecords.Record, _ covfun: [UInt8]) throws -> Bool {
        guard record.funcHash == 0 else { return false }
        return try MappingDecoder.isDummy(try ByteReader(covfun, start: Int(record.mappingStart), end: Int(record.mappingEnd),
                                                          context: "coverage mapping"))
    }

    /// FilenamesRef → the record's filenames (nil when two different lists share a ref).
    static func readCovmap(_ covmap: [UInt8]) throws -> [UInt64: [String]?] {
        var reader = ByteReader(covmap, context: "__llvm_covmap")
        var ranges: [UInt64: [String]?] = [:]
        guard !covmap.isEmpty else { throw ProfileDataError.noCoverageMapping("empty __llvm_covmap") }
        while !reader.isAtEnd {
            _ = try reader.u32("NRecords")
            let filenamesSize = try reader.u32("FilenamesSize")
            let coverageSize = try reader.u32("CoverageSize")
            let version = try reader.u32("Version")
            guard supportedVersions.contains(version) else {
                throw ProfileDataError.unsupported("coverage mapping header value \(version) (only \(supportedVersions))")
            }
            guard coverageSize == 0 else { throw ProfileDataError.corrupt("__llvm_covmap: coverage mapping size is not zero") }
            let encoded = try reader.bytes(Int(filenamesSize), "encoded filenames")
            let filenames = try decodeFilenames(encoded, version: version)
            let ref = MD5.low64(encoded)
            if let existing = ranges[ref] {
                if existing != filenames { ranges[ref] = .some(nil) }
            } else {
                ranges[ref] = filenames
            }
            reader.align(to: 8)
        }
        return ranges
    }

    /// `RawCoverageFilenamesReader::read`: count, sizes, then the (zlib) list of ULEB-prefixed names;
    /// from Version6 (value 5) entry 0 is the compilation directory and relative names join it.
    static func decodeFilenames(_ encoded: [UInt8], version: UInt32) throws -> [String] {
        var reader = ByteReader(encoded, context: "covmap filenames")
        let count = try reader.uleb128("number of filenames")
        guard count > 0, count <= UInt64(reader.remaining) else {
            throw ProfileDataError.corrupt("covmap filenames: \(count) filenames in \(reader.remaining) bytes")
        }
        let uncompressedSize = try reader.uleb128("uncompressed filenames size")
        let compressedSize = try reader.uleb128("compressed filenames size")
        var list: ByteReader
        if compressedSize > 0 {
            let compressed = try reader.bytes(compressedSize, "compressed filenames")
            list = ByteReader(try Zlib.uncompress(compressed, expectedSize: uncompressedSize), context: "covmap filenames")
        } else {
            list = reader
        }
        var names: [[UInt8]] = []
        for _ in 0..<Int(count) {
            let length = try list.uleb128("filename length")
            names.append(try list.bytes(length, "filename"))
        }
        guard version >= 5 else { return names.map { String(decoding: $0, as: UTF8.self) } }
        let directory = names[0]
        var result = [String(decoding: directory, as: UTF8.self)]
        for name in names.dropFirst() {
            if name.first == UInt8(ascii: "/") {
                result.append(String(decoding: name, as: UTF8.self))
            } else {
                result.append(String(decoding: PathJoin.joinAndRemoveDots(directory, name), as: UTF8.self))
            }
        }
        return result
    }
}

/// llvm's `sys::path::append` + `remove_dots(…, remove_dot_dot: true)` for POSIX paths, on bytes.
enum PathJoin {
    static func joinAndRemoveDots(_ directory: [UInt8], _ name: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        var joined = directory
        if !joined.isEmpty, joined.last != slash, !name.isEmpty { joined.append(slash) }
        joined += name
        let absolute = joined.first == slash
        var components: [ArraySlice<UInt8>] = []
        for component in joined.split(separator: slash, omittingEmptySubsequences: true) {
            if component.elementsEqual([UInt8(ascii: ".")]) { continue }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                if let last = components.last, !last.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                    components.removeLast()
                    continue
                }
                if absolute { continue }
            }
            components.append(component)
        }
        var result: [UInt8] = absolute ? [slash] : []
        for (index, component) in components.enumerated() {
            if index > 0 { result.append(slash) }
            result += component
        }
        return result
    }
}
