import CZlib

/// zlib (RFC 1950) inflation of llvm's compressed names and filenames, over the system zlib.
package enum Zlib {
    /// Larger announced sizes are refused: a hostile length must not make us allocate gigabytes.
    package static let maximumUncompressedSize = 1 << 30

    /// Inflates `compressed`, which must produce exactly `expectedSize` bytes (llvm's contract).
    package static func uncompress(_ compressed: [UInt8], expectedSize: UInt64) throws -> [UInt8] {
        let size = try checkedSize(expectedSize, compressedCount: compressed.count)
        if size == 0 { return [] }
        var output = [UInt8](repeating: 0, count: size)
        try output.withUnsafeMutableBufferPointer { try inflate(compressed, into: $0) }
        return output
    }

    /// Deflates `bytes` (zlib's default level): what `uncompress` reads back given `bytes.count`. Test
    /// impact analysis stores the per-test lines so, about a tenth of their JSON.
    package static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { CZlib.compress(out.baseAddress, &length, $0.baseAddress, uLong(bytes.count)) }
        }
        guard status == Z_OK else { throw ProfileDataError.corrupt("zlib compress failed (status \(status))") }
        return Array(output.prefix(Int(length)))
    }

    /// The announced size of a payload of `compressedCount` bytes, refused when it cannot be true.
    static func checkedSize(_ expectedSize: UInt64, compressedCount: Int) throws -> Int {
        guard expectedSize <= UInt64(maximumUncompressedSize) else {
            throw ProfileDataError.corrupt("zlib payload announces \(expectedSize) bytes, more than the 1 GiB cap")
        }
        let size = Int(expectedSize)
        if size == 0 { return 0 }
        guard compressedCount > 0 else { throw ProfileDataError.corrupt("empty zlib payload for \(size) bytes") }
        // Deflate cannot expand more than about 1032:1; a larger announced size is a lie, refused
        // before allocating it.
        guard expectedSize <= UInt64(compressedCount) * 1032 + 64 else {
            throw ProfileDataError.corrupt("zlib payload of \(compressedCount) bytes announces \(size) bytes")
        }
        return size
    }

    /// Inflates `compressed` into `output`, which it must fill exactly (the caller checked the
    /// announced size as `uncompress` does): names are inflated in place into one buffer.
    static func inflate(_ compressed: [UInt8], into output: UnsafeMutableBufferPointer<UInt8>) throws {
        try compressed.withUnsafeBufferPointer { try inflate($0, into: output) }
    }

    static func inflate(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) throws {
        var outputLength = uLongf(output.count)
        let status = CZlib.uncompress(output.baseAddress, &outputLength, input.baseAddress, uLong(input.count))
        guard status == Z_OK else {
            throw ProfileDataError.corrupt("zlib uncompress failed (status \(status))")
        }
        guard outputLength == uLongf(output.count) else {
            throw ProfileDataError.corrupt("zlib produced \(outputLength) bytes, \(output.count) announced")
        }
    }
}
