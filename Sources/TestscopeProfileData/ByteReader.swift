/// A bounds-checked little-endian cursor over bytes: every read past the end throws
/// `ProfileDataError.truncated`, so hostile or cut-off files can never trap.
package struct ByteReader: Sendable {
    package let bytes: [UInt8]
    /// The absolute offset of the next read into `bytes`.
    package private(set) var offset: Int
    /// One past the last readable byte (a reader may be limited to a window of `bytes`).
    package let end: Int
    /// Names the input in error messages ("profraw header", "covfun record", …).
    package var context: String

    package init(_ bytes: [UInt8], context: String = "input") {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
        self.context = context
    }

    /// A reader over `bytes[start..<end]`, offsets still absolute.
    package init(_ bytes: [UInt8], start: Int, end: Int, context: String = "input") throws {
        guard start >= 0, start <= end, end <= bytes.count else {
            throw ProfileDataError.truncated("\(context): range \(start)..<\(end) outside \(bytes.count) bytes")
        }
        self.bytes = bytes
        self.offset = start
        self.end = end
        self.context = context
    }

    package var remaining: Int { end - offset }
    package var isAtEnd: Bool { offset >= end }

    /// Throws unless `count` more bytes are available; count may come straight from the input.
    package func require(_ count: Int, _ what: @autoclosure () -> String) throws {
        guard count >= 0, count <= remaining else {
            throw ProfileDataError.truncated("\(context): \(what()) needs \(count) bytes at offset \(offset), \(remaining) left")
        }
    }

    /// The same as `require` for an unsigned 64-bit count read from the input.
    package func require(_ count: UInt64, _ what: @autoclosure () -> String) throws -> Int {
        guard count <= UInt64(remaining) else {
            throw ProfileDataError.truncated("\(context): \(what()) needs \(count) bytes at offset \(offset), \(remaining) left")
        }
        return Int(count)
    }

    package mutating func seek(to absolute: Int) throws {
        guard absolute >= 0, absolute <= end else {
            throw ProfileDataError.truncated("\(context): offset \(absolute) outside 0..<\(end)")
        }
        offset = absolute
    }

    package mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "skipped bytes") throws {
        try require(count, what())
        offset += count
    }

    package mutating func skip(_ count: UInt64, _ what: @autoclosure () -> String = "skipped bytes") throws {
        offset += try require(count, what())
    }

    /// Skips one value-profile blob (`ValueProfData`: a u32 total size, at least 8 and a multiple of 8,
    /// that counts itself), which raw and indexed profiles carry per record and coverage does not use;
    /// `format` (`profraw`, `profdata`) names the file in the error.
    package mutating func skipValueProfileData(_ format: String) throws {
        let start = offset
        let totalSize = try u32("ValueProfData TotalSize")
        guard totalSize >= 8, totalSize % 8 == 0 else {
            throw ProfileDataError.corrupt("\(format): value-profile blob of \(totalSize) bytes")
        }
        try seek(to: start)
        try skip(Int(totalSize), "value-profile blob")
    }

    /// Skips zero bytes up to the next multiple of `alignment` (absolute), or to the end.
    package mutating func align(to alignment: Int) {
        let rest = offset % alignment
        if rest != 0 { offset = min(end, offset + (alignment - rest)) }
    }

    package mutating func u8(_ what: @autoclosure () -> String = "u8") throws -> UInt8 {
        try require(1, what())
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func u16(_ what: @autoclosure () -> String = "u16") throws -> UInt16 {
        UInt16(truncatingIfNeeded: try little(2, what()))
    }

    package mutating func u32(_ what: @autoclosure () -> String = "u32") throws -> UInt32 {
        UInt32(truncatingIfNeeded: try little(4, what()))
    }

    package mutating func u64(_ what: @autoclosure () -> String = "u64") throws -> UInt64 {
        try little(8, what())
    }

    package mutating func i64(_ what: @autoclosure () -> String = "i64") throws -> Int64 {
        Int64(bitPattern: try little(8, what()))
    }

    /// Unsigned LEB128; more than 64 significant bits is corrupt (llvm would silently return 0).
    @inline(__always)
    package mutating func uleb128(_ what: @autoclosure () -> String = "ULEB128") throws -> UInt64 {
        // One byte (a value below 128) is most of a coverage mapping: read in place, without the loop.
        if offset < end, bytes[offset] < 0x80 {
            offset += 1
            return UInt64(bytes[offset - 1])
        }
        return try uleb128Loop(what)
    }

    private mutating func uleb128Loop(_ what: () -> String) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else {
                throw ProfileDataError.truncated("\(context): \(what()) runs past the end at offset \(offset)")
            }
            let byte = bytes[offset]
            offset += 1
            let payload = UInt64(byte & 0x7f)
            if shift >= 64 {
                if payload != 0 { throw ProfileDataError.corrupt("\(context): \(what()) overflows 64 bits") }
            } else {
                if shift == 63 && payload > 1 { throw ProfileDataError.corrupt("\(context): \(what()) overflows 64 bits") }
                result |= payload << shift
            }
            if byte & 0x80 == 0 { return result }
            shift += 7
            // Padding with 0x80 bytes is legal LEB128, but not endlessly: cap the encoding length.
            if shift > 70 * 7 { throw ProfileDataError.corrupt("\(context): \(what()) longer than any real encoding") }
        }
    }

    /// `count` raw bytes as a new array.
    package mutating func bytes(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws -> [UInt8] {
        try require(count, what())
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// `count` raw bytes as a new array, for a count read from the input.
    package mutating func bytes(_ count: UInt64, _ what: @autoclosure () -> String = "bytes") throws -> [UInt8] {
        let n = try require(count, what())
        return try bytes(n, what())
    }

    /// A reader limited to the next `count` bytes (offsets stay absolute); advances past them.
    package mutating func slice(_ count: UInt64, _ what: @autoclosure () -> String = "slice") throws -> ByteReader {
        let n = try require(count, what())
        let sub = try ByteReader(bytes, start: offset, end: offset + n, context: context)
        offset += n
        return sub
    }

    private mutating func little(_ width: Int, _ what: @autoclosure () -> String) throws -> UInt64 {
        try require(width, what())
        // One unaligned load after the bounds check (a shifted byte at a time, each bounds-checked,
        // was 2 % of a text report's CPU: every counter of an indexed profile is read here).
        let at = offset
        let value = bytes.withUnsafeBytes { raw -> UInt64 in
            switch width {
            case 8: return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            case 4: return UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            default: return UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
            }
        }
        offset += width
        return value
    }

    /// `count` little-endian u64s (`count` checked against what is left first).
    package mutating func u64s(_ count: Int, _ what: @autoclosure () -> String = "u64s") throws -> [UInt64] {
        guard count >= 0, count <= remaining / 8 else {
            throw ProfileDataError.truncated("\(context): \(what()) needs \(count) × 8 bytes at offset \(offset), \(remaining) left")
        }
        let at = offset
        let values = bytes.withUnsafeBytes { raw in
            [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
                for i in 0..<count {
                    buffer[i] = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8 * i, as: UInt64.self))
                }
                initialized = count
            }
        }
        offset += 8 * count
        return values
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hex, as llvm-profdata and readelf print binary IDs.
    var hexString: String {
        let digits = Swift.Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Array {
    /// The same elements in storage of their own size: an array grown by appending keeps up to
    /// twice its size, and the readers' arrays live until every record is evaluated (the peak).
    func trimmed() -> [Element] {
        guard capacity > count + count / 8 else { return self }
        return withUnsafeBufferPointer { Swift.Array($0) }
    }
}
