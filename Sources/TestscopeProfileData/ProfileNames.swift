import TestscopeExecution
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// llvm's encoded name lists (profile names section, `__llvm_prf_names`, vtable names): chunks of
/// [ULEB uncompressed size][ULEB compressed size (0 = raw)][payload], names split by 0x01.
package enum ProfileNames {
    /// Every name, in order, as `readAndDecodeStrings` (InstrProf.cpp) yields them; empty names dropped.
    package static func decode(_ bytes: [UInt8], context: String = "names") throws -> [String] {
        try decodeBytes(bytes, context: context).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names as raw bytes: NameRefs are MD5s of the bytes, which a String round trip could alter.
    package static func decodeBytes(_ bytes: [UInt8], context: String = "names") throws -> [[UInt8]] {
        let list = try payload(bytes, context: context)
        return list.spans.map { Array(list.bytes[$0]) }
    }

    /// Every chunk's payload concatenated, and where each name lies in it (empty names dropped).
    static func payload(_ bytes: [UInt8], context: String) throws -> (bytes: [UInt8], spans: [Range<Int>]) {
        // The chunks' headers read first, then every chunk inflated into its own part of one buffer
        // and split into names on every core: a linked binary has a chunk per object file (443 at
        // 400 files), and inflating them one after the other was 30 M instructions on the thread
        // that reads the mapping, after the profile's thread had finished.
        var reader = ByteReader(bytes, context: context)
        var chunks: [Chunk] = []
        var total = 0
        while !reader.isAtEnd {
            let uncompressedSize = try reader.uleb128("names chunk size")
            let compressedSize = try reader.uleb128("names chunk compressed size")
            let source = reader.offset
            let chunk: Chunk
            if compressedSize != 0 {
                try reader.skip(compressedSize, "compressed names chunk")
                let size = try Zlib.checkedSize(uncompressedSize, compressedCount: reader.offset - source)
                chunk = Chunk(source: source..<reader.offset, compressed: true, start: total, size: size)
            } else {
                try reader.skip(uncompressedSize, "names chunk")
                chunk = Chunk(source: source..<reader.offset, compressed: false, start: total, size: reader.offset - source)
            }
            chunks.append(chunk)
            total += chunk.size
            guard total <= Zlib.maximumUncompressedSize else {
                throw ProfileDataError.corrupt("\(context): names of more than \(Zlib.maximumUncompressedSize) bytes")
            }
            // The writer pads chunks with zero bytes ("separated by 0 or more zero bytes").
            while !reader.isAtEnd, reader.bytes[reader.offset] == 0 { try reader.skip(1) }
        }
        // Not zeroed first: each chunk fills its part or the whole reading throws.
        var all = [UInt8](unsafeUninitializedCapacity: total) { _, initialized in initialized = total }
        // Each chunk inflated and its names counted, then their spans written to their places in
        // one array: a spans array per chunk, joined after, was 1 MB more at the peak of reading.
        let counts = all.withUnsafeMutableBufferPointer { all in
            bytes.withUnsafeBufferPointer { bytes in
                Parallel.map(chunks.count) { c -> Result<Int, any Error> in
                    Result {
                        try chunks[c].inflate(from: bytes, into: all)
                        return chunks[c].names(in: UnsafeBufferPointer(all)) { _ in }
                    }
                }
            }
        }
        var firstSpan: [Int] = [0]
        firstSpan.reserveCapacity(chunks.count + 1)
        for count in counts { firstSpan.append(firstSpan.last! + (try count.get())) }
        let spans = [Range<Int>](unsafeUninitializedCapacity: firstSpan.last!) { spans, initialized in
            all.withUnsafeBufferPointer { all in
                _ = Parallel.map(chunks.count) { c in
                    var next = firstSpan[c]
                    _ = chunks[c].names(in: all) { span in
                        (spans.baseAddress! + next).initialize(to: span)
                        next += 1
                    }
                }
            }
            initialized = firstSpan.last!
        }
        return (all, spans)
    }

    /// One chunk of a names section: where its payload is, and where its names go.
    private struct Chunk {
        var source: Range<Int>
        var compressed: Bool
        var start: Int
        var size: Int

        /// The chunk's payload written to its place in `all`.
        func inflate(from bytes: UnsafeBufferPointer<UInt8>, into all: UnsafeMutableBufferPointer<UInt8>) throws {
            let target = UnsafeMutableBufferPointer(rebasing: all[start..<start + size])
            let payload = UnsafeBufferPointer(rebasing: bytes[source])
            if compressed {
                try Zlib.inflate(payload, into: target)
            } else if size > 0 {
                target.baseAddress!.update(from: payload.baseAddress!, count: size)
            }
        }

        /// Each non-empty name of the chunk (its span in `all`) given to `body`, in order; how many.
        /// The separators found with memchr: a byte-by-byte loop over the names was 35 M
        /// instructions at 400 files.
        func names(in all: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Void) -> Int {
            guard size > 0, let base = all.baseAddress.map({ $0 + start }) else { return 0 }
            var count = 0
            var nameStart = 0
            while nameStart < size, let hit = memchr(base + nameStart, 0x01, size - nameStart) {
                let i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if i > nameStart { body(start + nameStart..<start + i); count += 1 }
                nameStart = i + 1
            }
            if size > nameStart { body(start + nameStart..<start + size); count += 1 }
            return count
        }
    }

    /// NameRef → name, for mapping a binary's or profile's keys back to printable names.
    package static func table(_ bytes: [UInt8], context: String = "names") throws -> NameTable {
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
package struct NameTable: Sendable {
    struct Span: Sendable {
        var start: UInt32
        var count: UInt32
    }

    let bytes: [UInt8]
    /// NameRef → its span.
    let index: UInt64Index
    let spans: [Span]

    package init() {
        bytes = []
        index = UInt64Index()
        spans = []
    }

    init(bytes: [UInt8], index: UInt64Index, spans: [Span]) {
        self.bytes = bytes
        self.index = index
        self.spans = spans
    }

    package var count: Int { spans.count }

    /// Whether a non-empty name has MD5 `nameRef`.
    package func hasName(_ nameRef: UInt64) -> Bool {
        guard let i = index[nameRef] else { return false }
        return spans[Int(i)].count > 0
    }

    /// `body` given the bytes of the name whose MD5 is `nameRef`, in place; nil (and `body` not called) when there is none.
    package func withName<R>(_ nameRef: UInt64, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
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
    package subscript(nameRef: UInt64) -> String? {
        guard let i = index[nameRef] else { return nil }
        let span = spans[Int(i)]
        return String(decoding: bytes[Int(span.start)..<Int(span.start + span.count)], as: UTF8.self)
    }
}
