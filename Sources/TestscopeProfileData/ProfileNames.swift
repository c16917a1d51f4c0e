import TestscopeExecution

/// llvm's encoded name lists (profile names section, `__llvm_prf_names`, vtable names): chunks of
/// [ULEB uncompressed size][ULEB compressed size (0 = raw)][payload], names split by 0x01.
public enum ProfileNames {
    /// Every name, in order, as `readAndDecodeStrings` (InstrProf.cpp) yields them; empty names dropped.
    public static func decode(_ bytes: [UInt8], context: String = "names") throws -> [String] {
        try decodeBytes(bytes, context: context).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names as raw bytes: NameRefs are MD5s of the bytes, which a String round trip could alter.
    public static func decodeBytes(_ bytes: [UInt8], context: String = "names") throws -> [[UInt8]] {
        var reader = ByteReader(bytes, context: context)
        var names: [[UInt8]] = []
        while !reader.isAtEnd {
            let uncompressedSize = try reader.uleb128("names chunk size")
            let compressedSize = try reader.uleb128("names chunk compressed size")
            let payload: [UInt8]
            if compressedSize != 0 {
                let compressed = try reader.bytes(compressedSize, "compressed names chunk")
                payload = try Zlib.uncompress(compressed, expectedSize: uncompressedSize)
            } else {
                payload = try reader.bytes(uncompressedSize, "names chunk")
            }
            for name in payload.split(separator: 0x01, omittingEmptySubsequences: true) {
                names.append(Array(name))
            }
            // The writer pads chunks with zero bytes ("separated by 0 or more zero bytes").
            while !reader.isAtEnd, reader.bytes[reader.offset] == 0 { try reader.skip(1) }
        }
        return names
    }

    /// NameRef → name, for mapping a binary's or profile's keys back to printable names.
    public static func table(_ bytes: [UInt8], context: String = "names") throws -> [UInt64: String] {
        let names = try decodeBytes(bytes, context: context)
        // Hashing every name is the costliest step of reading a mapping's names: on every core.
        let keys = Parallel.chunkedMap(names.count) { MD5.low64(names[$0]) }
        var table: [UInt64: String] = [:]
        table.reserveCapacity(names.count)
        for (key, name) in zip(keys, names) { table[key] = String(decoding: name, as: UTF8.self) }
        return table
    }
}
