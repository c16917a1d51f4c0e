import TestscopeExecution
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// llvm's encoded name lists (profile names section, `__llvm_prf_names`, vtable names): chunks of
/// [ULEB uncompressed size][ULEB compressed size (0 = raw)][payload], names split by 0x01.
public enum ProfileNames {
    /// Every name, in order, as `readAndDecodeStrings` (InstrProf.cpp) yields them; empty names dropped.
    public static func decode(_ bytes: [UInt8], context: String = "names") throws -> [String] {
        try decodeBytes(bytes, context: context).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names as raw bytes: NameRefs are MD5s of the bytes, which a String round trip could alter.
    public static func decodeBytes(_ bytes: [UInt8], context: String = "names") throws -> [[UInt8]] {
        let list = try payload(bytes, context: context)
        return list.spans.map { Array(list.bytes[$0]) }
    }

    /// Every chunk's payload concatenated, and where each name lies in it (empty names dropped).
    static func payload(_ bytes: [UInt8], context: String) throws -> (bytes: [UInt8], spans: [Range<Int>]) {
        var reader = ByteReader(bytes, context: context)
        var all: [UInt8] = []
        // Room for every chunk at once, each inflated in place: appended chunk by chunk, the names
        // (4.4 MB at 800 files) were copied and the buffer grown while the mapping was read, the peak.
        all.reserveCapacity(announcedSize(bytes))
        var spans: [Range<Int>] = []
        while !reader.isAtEnd {
            let uncompressedSize = try reader.uleb128("names chunk size")
            let compressedSize = try reader.uleb128("names chunk compressed size")
            let start = all.count
            if compressedSize != 0 {
                let compressed = try reader.bytes(compressedSize, "compressed names chunk")
                let size = try Zlib.checkedSize(uncompressedSize, compressedCount: compressed.count)
                all.append(contentsOf: repeatElement(0, count: size))
                try all.withUnsafeMutableBufferPointer { all in
                    try Zlib.inflate(compressed, into: UnsafeMutableBufferPointer(rebasing: all[start..<start + size]))
                }
            } else {
                all += try reader.bytes(uncompressedSize, "names chunk")
            }
            // The separators found with memchr: a byte-by-byte loop over the names was 35 M
            // instructions at 400 files, on the one thread that reads the mapping.
            var nameStart = start
            all.withUnsafeBufferPointer { all in
                guard let base = all.baseAddress else { return }
                while nameStart < all.count, let hit = memchr(base + nameStart, 0x01, all.count - nameStart) {
                    let i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if i > nameStart { spans.append(nameStart..<i) }
                    nameStart = i + 1
                }
            }
            if all.count > nameStart { spans.append(nameStart..<all.count) }
            // The writer pads chunks with zero bytes ("separated by 0 or more zero bytes").
            while !reader.isAtEnd, reader.bytes[reader.offset] == 0 { try reader.skip(1) }
        }
        return (all, spans)
    }

    /// The names' size as the chunks announce it (bounded as `Zlib` bounds it; 0 past anything odd,
    /// which the reading then reports): the capacity to reserve, never touched beyond what is written.
    static func announcedSize(_ bytes: [UInt8]) -> Int {
        var reader = ByteReader(bytes, context: "names")
        var total = 0
        while !reader.isAtEnd {
            guard let size = try? reader.uleb128("size"), let compressed = try? reader.uleb128("compressed size") else { break }
            let payload = compressed == 0 ? size : compressed
            guard payload <= UInt64(reader.remaining), size <= UInt64(Zlib.maximumUncompressedSize),
                  compressed == 0 || size <= compressed * 1032 + 64 else { break }
            total += Int(size)
            guard total <= Zlib.maximumUncompressedSize, (try? reader.skip(Int(payload))) != nil else { break }
            while !reader.isAtEnd, reader.bytes[reader.offset] == 0, (try? reader.skip(1)) != nil {}
        }
        return min(total, Zlib.maximumUncompressedSize)
    }

    /// NameRef → name, for mapping a binary's or profile's keys back to printable names.
    public static func table(_ bytes: [UInt8], context: String = "names") throws -> NameTable {
        let list = try payload(bytes, context: context)
        guard list.bytes.count <= Int(UInt32.max) else { throw ProfileDataError.corrupt("\(context): names of \(list.bytes.count) bytes") }
        // Hashing every name is the costliest step of reading a mapping's names: on every core.
        let keys = list.bytes.withUnsafeBytes { all in
            Parallel.chunkedMap(list.spans.count) { MD5.low64(UnsafeRawBufferPointer(rebasing: all[list.spans[$0]])) }
        }
        var index = UInt64Index(minimumCapacity: keys.count)
        var spans: [NameTable.Span] = []
        spans.reserveCapacity(keys.count)
        for (key, span) in zip(keys, list.spans) {
            // A repeated name keeps its last span, as a dictionary's assignment did.
            if let i = index[key] {
                spans[Int(i)] = NameTable.Span(start: UInt32(span.lowerBound), count: UInt32(span.count))
            } else {
                index[key] = Int32(spans.count)
                spans.append(NameTable.Span(start: UInt32(span.lowerBound), count: UInt32(span.count)))
            }
        }
        return NameTable(bytes: list.bytes.trimmed(), index: index, spans: spans)
    }
}

/// NameRef → PGO name over the names' bytes kept in one buffer: a `String` per name (and an array
/// per name on the way) was 15 % of an 800-file report's page faults; a name becomes a `String`
/// only when a record is evaluated.
public struct NameTable: Sendable {
    struct Span: Sendable {
        var start: UInt32
        var count: UInt32
    }

    let bytes: [UInt8]
    /// NameRef → its span.
    let index: UInt64Index
    let spans: [Span]

    public init() {
        bytes = []
        index = UInt64Index()
        spans = []
    }

    init(bytes: [UInt8], index: UInt64Index, spans: [Span]) {
        self.bytes = bytes
        self.index = index
        self.spans = spans
    }

    public var count: Int { spans.count }

    /// Whether a non-empty name has MD5 `nameRef`.
    public func hasName(_ nameRef: UInt64) -> Bool {
        guard let i = index[nameRef] else { return false }
        return spans[Int(i)].count > 0
    }

    /// `body` given the bytes of the name whose MD5 is `nameRef`, in place; nil (and `body` not called) when there is none.
    public func withName<R>(_ nameRef: UInt64, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let i = index[nameRef] else { return nil }
        let span = spans[Int(i)]
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(span.start)..<Int(span.start + span.count)])) }
    }

    /// Where the name whose MD5 is `nameRef` is in `bytes`, or nil.
    func span(of nameRef: UInt64) -> Span? {
        guard let i = index[nameRef] else { return nil }
        return spans[Int(i)]
    }

    /// The name whose MD5 is `nameRef`, or nil.
    public subscript(nameRef: UInt64) -> String? {
        guard let i = index[nameRef] else { return nil }
        let span = spans[Int(i)]
        return String(decoding: bytes[Int(span.start)..<Int(span.start + span.count)], as: UTF8.self)
    }
}
