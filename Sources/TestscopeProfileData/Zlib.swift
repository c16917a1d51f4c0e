import CZlib

/// zlib (RFC 1950) inflation of llvm's compressed names and filenames, over the system zlib.
public enum Zlib {
    /// Larger announced sizes are refused: a hostile length must not make us allocate gigabytes.
    public static let maximumUncompressedSize = 1 << 30

    /// Inflates `compressed`, which must produce exactly `expectedSize` bytes (llvm's contract).
    public static func uncompress(_ compressed: [UInt8], expectedSize: UInt64) throws -> [UInt8] {
        guard expectedSize <= UInt64(maximumUncompressedSize) else {
            throw ProfileDataError.corrupt("zlib payload announces \(expectedSize) bytes, more than the 1 GiB cap")
        }
        let size = Int(expectedSize)
        if size == 0 { return [] }
        guard !compressed.isEmpty else { throw ProfileDataError.corrupt("empty zlib payload for \(size) bytes") }
        // Deflate cannot expand more than about 1032:1; a larger announced size is a lie, refused
        // before allocating it.
        guard expectedSize <= UInt64(compressed.count) * 1032 + 64 else {
            throw ProfileDataError.corrupt("zlib payload of \(compressed.count) bytes announces \(size) bytes")
        }
        var output = [UInt8](repeating: 0, count: size)
        var outputLength = uLongf(size)
        let status = output.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { input in
                CZlib.uncompress(out.baseAddress, &outputLength, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK else {
            throw ProfileDataError.corrupt("zlib uncompress failed (status \(status))")
        }
        guard outputLength == uLongf(size) else {
            throw ProfileDataError.corrupt("zlib produced \(outputLength) bytes, \(size) announced")
        }
        return output
    }
}
