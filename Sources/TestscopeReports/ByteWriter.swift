import TestscopeExecution

/// A byte buffer for the large machine-readable outputs: integers and strings are appended as
/// UTF-8 without going through string interpolation (several times faster on big reports).
struct ByteWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(1 << 16) }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(string text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func append<I: BinaryInteger>(int value: I) {
        if value == 0 { bytes.append(0x30); return }
        var v = UInt64(value)
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 {
                buffer[count] = UInt8(v % 10) + 0x30
                v /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }

    /// `Format.fixed(value, decimals:)` without building a string (every ratio of coverage.json has one).
    mutating func append(fixed value: Double, decimals: Int) {
        let (whole, fraction, scale) = Format.fixedParts(value, decimals: decimals)
        guard whole >= 0, fraction >= 0 else { append(string: Format.fixed(value, decimals: decimals)); return }
        append(int: whole)
        guard decimals > 0 else { return }
        bytes.append(0x2E)
        var divisor = scale / 10
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: fraction / divisor % 10) + 0x30)
            divisor /= 10
        }
    }

    /// A JSON string literal.
    mutating func append(json text: String) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(0x22)
            for b in utf8 {
                switch b {
                case 0x22: bytes.append(0x5C); bytes.append(0x22)
                case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
                case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
                case 0x0D: bytes.append(0x5C); bytes.append(0x72)
                case 0x09: bytes.append(0x5C); bytes.append(0x74)
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
                default: bytes.append(b)
                }
            }
            bytes.append(0x22)
        }
    }

    /// Hands the bytes to the output when the buffer is large.
    mutating func flush<Output: TextOutput>(to output: inout Output, force: Bool = false) throws {
        guard force || bytes.count >= 1 << 16 else { return }
        try output.write(bytes: bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}

extension TextOutput {
    /// Writes UTF-8 bytes (renderers that build bytes use this).
    public mutating func write(bytes: [UInt8]) throws {
        try write(String(decoding: bytes, as: UTF8.self))
    }
}

extension AtomicFileWriter {
    public func write(bytes: [UInt8]) throws {
        try write(bytes: bytes[...])
    }
}

/// Bytes collected in memory: one file's piece of a format, rendered on a worker thread.
struct BytesOutput: TextOutput {
    var bytes: [UInt8] = []
    mutating func write(_ text: String) throws { bytes.append(contentsOf: text.utf8) }
    mutating func write(bytes more: [UInt8]) throws { bytes.append(contentsOf: more) }
}

/// Per-file pieces of a format rendered on every core, a batch at a time, and written in order:
/// the pieces are independent, and one core wrote `coverage.json` of 800 files (46 MB) in 0.23 s.
enum PiecesInParallel {
    static func write<Item, Output: TextOutput>(_ items: [Item], batchSize: Int = 64, to out: inout Output,
                                                _ render: (Int, Item, inout BytesOutput) throws -> Void) throws {
        var start = 0
        while start < items.count {
            let end = min(start + batchSize, items.count)
            let pieces = Parallel.map(end - start) { i -> Result<[UInt8], any Error> in
                Result {
                    var piece = BytesOutput()
                    try render(start + i, items[start + i], &piece)
                    return piece.bytes
                }
            }
            for piece in pieces { try out.write(bytes: try piece.get()) }
            start = end
        }
    }
}
