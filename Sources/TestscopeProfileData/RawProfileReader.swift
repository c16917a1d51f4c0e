import Foundation
import TestscopeExecution

/// One function's record in a raw profile: its key and its counters.
package struct RawProfileRecord: Sendable, Equatable {
    package var nameRef: UInt64
    package var funcHash: UInt64
    package var counters: [UInt64]
    /// Where the counters start in the profile's counters section, in bytes (the same offset in the
    /// binary's `__llvm_prf_cnts`: what per-test coverage's counter indexes refer to).
    package var counterOffset: Int = 0
}

/// One raw profile (a `.profraw` may hold several back to back), decoded.
package struct RawProfile: Sendable {
    /// The format version (low 32 bits of the header's Version).
    package var version: UInt64
    /// GNU build IDs of the instrumented binaries, lower-case hex.
    package var binaryIDs: [String]
    package var records: [RawProfileRecord]
    /// The names section as stored (checked when read): the counters are keyed by NameRef, so a
    /// report never needs the names, and a String per function of every profile was wasted work.
    var namesSection: [UInt8]

    /// The PGO names of the names section, in order.
    package func names() throws -> [String] { try ProfileNames.decode(namesSection, context: "profraw names") }
}

/// Reads `.profraw` files as written by compiler-rt for a 64-bit little-endian target, raw version
/// 10 only (the layout changes with every version); the layout follows `RawInstrProfReader`.
package enum RawProfileReader {
    package static let supportedVersion: UInt64 = 10
    static let magic64: UInt64 = 0xff6c_7072_6f66_7281
    static let magic32: UInt64 = 0xff6c_7072_6f66_5281
    static let headerSize = 16 * 8
    static let dataRecordSize = 64
    static let vtableRecordSize = 24

    /// Reads every profile of the file at `path`.
    package static func read(path: String) throws -> [RawProfile] {
        try read(bytes: FileBytes.readAll(path: path))
    }

    /// Reads every profile in `bytes`, back to back (zero padding between them is skipped).
    package static func read(bytes: [UInt8]) throws -> [RawProfile] {
        guard bytes.count >= 8 else {
            throw ProfileDataError.truncated("profraw: \(bytes.count) bytes, not even a magic")
        }
        var reader = ByteReader(bytes, context: "profraw")
        try checkMagic(try reader.u64("magic"))
        try reader.seek(to: 0)
        var profiles: [RawProfile] = []
        while true {
            // readNextHeader: skip zero padding; the next profile must be 8-aligned with the same magic.
            while !reader.isAtEnd, bytes[reader.offset] == 0 { try reader.skip(1) }
            if reader.isAtEnd { break }
            guard reader.offset % 8 == 0 else {
                throw ProfileDataError.corrupt("profraw: profile \(profiles.count) at unaligned offset \(reader.offset)")
            }
            profiles.append(try readOne(&reader))
        }
        return profiles
    }

    private static func checkMagic(_ magic: UInt64) throws {
        switch magic {
        case magic64: return
        case magic32: throw ProfileDataError.unsupported("profraw of a 32-bit target")
        case magic64.byteSwapped, magic32.byteSwapped: throw ProfileDataError.unsupported("byte-swapped (big-endian) profraw")
        default: throw ProfileDataError.corrupt("profraw: bad magic 0x\(String(magic, radix: 16))")
        }
    }

    /// One profile starting at the reader's offset; leaves the reader after its value-profile data.
    private static func readOne(_ reader: inout ByteReader) throws -> RawProfile {
        let start = reader.offset
        try reader.require(headerSize, "header")
        try checkMagic(try reader.u64("magic"))
        let versionField = try reader.u64("version")
        let version = versionField & 0xffff_ffff
        guard versionField >> 32 == 0 else {
            throw ProfileDataError.unsupported("profraw variant bits 0x\(String(versionField >> 32, radix: 16)) (IR, context-sensitive, byte coverage, entry-only, correlation, memprof or temporal profile)")
        }
        guard version == supportedVersion else {
            throw ProfileDataError.unsupported("profraw version \(version) (only \(supportedVersion))")
        }
        let binaryIDsSize = try reader.u64("BinaryIdsSize")
        let numData = try reader.u64("NumData")
        let paddingBeforeCounters = try reader.u64("PaddingBytesBeforeCounters")
        let numCounters = try reader.u64("NumCounters")
        let paddingAfterCounters = try reader.u64("PaddingBytesAfterCounters")
        let numBitmapBytes = try reader.u64("NumBitmapBytes")
        let paddingAfterBitmap = try reader.u64("PaddingBytesAfterBitmapBytes")
        let namesSize = try reader.u64("NamesSize")
        let countersDelta = try reader.i64("CountersDelta")
        _ = try reader.i64("BitmapDelta")
        _ = try reader.u64("NamesDelta")
        let numVTables = try reader.u64("NumVTables")
        let vnamesSize = try reader.u64("VNamesSize")
        _ = try reader.u64("ValueKindLast")

        // Correlation mode: data and names live in the binary or its debug info, not here.
        if numData == 0, namesSize == 0, numCounters > 0 {
            throw ProfileDataError.unsupported("profraw without data records (binary or debug-info correlation)")
        }
        guard binaryIDsSize % 8 == 0 else { throw ProfileDataError.corrupt("profraw: BinaryIdsSize \(binaryIDsSize) not a multiple of 8") }

        // Section sizes computed with overflow checks: every one of them comes from the file.
        // `advance` returns where the section it skips starts.
        var layout = Layout(base: start, available: reader.end - start)
        _ = try layout.advance(by: UInt64(headerSize))
        let binaryIDsOffset = try layout.advance(by: binaryIDsSize)
        let dataOffset = try layout.advance(by: try product(numData, UInt64(dataRecordSize)))
        _ = try layout.advance(by: paddingBeforeCounters)
        let countersBytes = try product(numCounters, 8)
        let countersOffset = try layout.advance(by: countersBytes)
        _ = try layout.advance(by: paddingAfterCounters)
        _ = try layout.advance(by: numBitmapBytes)
        _ = try layout.advance(by: paddingAfterBitmap)
        let namesOffset = try layout.advance(by: namesSize)
        _ = try layout.advance(by: padding(namesSize))
        let vtablesBytes = try product(numVTables, UInt64(vtableRecordSize))
        _ = try layout.advance(by: vtablesBytes)
        _ = try layout.advance(by: padding(vtablesBytes))
        _ = try layout.advance(by: vnamesSize)
        _ = try layout.advance(by: padding(vnamesSize))
        let valueDataOffset = layout.position
        guard valueDataOffset <= reader.end else {
            throw ProfileDataError.truncated("profraw: sections end at \(valueDataOffset), file has \(reader.end) bytes")
        }

        let binaryIDs = try readBinaryIDs(reader.bytes, start: binaryIDsOffset, end: dataOffset, context: "profraw binary IDs")

        var values = try ByteReader(reader.bytes, start: valueDataOffset, end: reader.end, context: "profraw value data")
        var data = try ByteReader(reader.bytes, start: dataOffset, end: dataOffset + Int(numData) * dataRecordSize, context: "profraw data")
        var records: [RawProfileRecord] = []
        records.reserveCapacity(Int(numData))
        var delta = countersDelta
        for index in 0..<Int(numData) {
            let nameRef = try data.u64("NameRef")
            let funcHash = try data.u64("FuncHash")
            let counterPtr = try data.i64("CounterPtr")
            try data.skip(24, "BitmapPtr, FunctionPointer, Values")
            let count = try data.u32("NumCounters")
            var valueKinds = 0
            for _ in 0..<3 {
                if try data.u16("NumValueSites") != 0 { valueKinds += 1 }
            }
            try data.skip(6, "NumBitmapBytes and tail padding")

            // readRawCounts: the record's CounterPtr is relative to the record itself.
            guard count > 0 else { throw ProfileDataError.corrupt("profraw: record \(index) has zero counters") }
            let (offset, overflow) = counterPtr.subtractingReportingOverflow(delta)
            guard !overflow, offset >= 0, UInt64(offset) < countersBytes else {
                throw ProfileDataError.corrupt("profraw: record \(index) counters at \(counterPtr) outside the counters section")
            }
            guard UInt64(offset) + UInt64(count) * 8 <= countersBytes else {
                throw ProfileDataError.corrupt("profraw: record \(index) counters run past the counters section")
            }
            var counterReader = try ByteReader(reader.bytes, start: countersOffset + Int(offset),
                                               end: countersOffset + Int(countersBytes), context: "profraw counters")
            let counters = try counterReader.u64s(Int(count), "counters")
            records.append(RawProfileRecord(nameRef: nameRef, funcHash: funcHash, counters: counters, counterOffset: Int(offset)))

            // Value-profile data follows, one blob per record with value sites, skipped by its size.
            if valueKinds > 0 { try values.skipValueProfileData("profraw") }
            let (next, deltaOverflow) = delta.subtractingReportingOverflow(Int64(dataRecordSize))
            guard !deltaOverflow else { throw ProfileDataError.corrupt("profraw: CountersDelta overflows") }
            delta = next
        }

        let namesBytes = Array(reader.bytes[namesOffset..<(namesOffset + Int(namesSize))])
        // Checked as before (a corrupt names section is a corrupt profile), without a String per name.
        _ = try ProfileNames.payload(namesBytes, context: "profraw names")
        try reader.seek(to: values.offset)
        return RawProfile(version: version, binaryIDs: binaryIDs, records: records, namesSection: namesBytes)
    }

    /// [u64 length][bytes][zero padding to 8], repeated: the binary-IDs layout of raw and indexed files.
    static func readBinaryIDs(_ bytes: [UInt8], start: Int, end: Int, context: String) throws -> [String] {
        var reader = try ByteReader(bytes, start: start, end: end, context: context)
        var ids: [String] = []
        while !reader.isAtEnd {
            let length = try reader.u64("binary ID length")
            guard length > 0 else { throw ProfileDataError.corrupt("\(context): binary ID of length 0") }
            ids.append(try reader.bytes(length, "binary ID").hexString)
            reader.align(to: 8)
        }
        return ids
    }

    private static func product(_ count: UInt64, _ size: UInt64) throws -> UInt64 {
        let (value, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow else { throw ProfileDataError.corrupt("profraw: section size overflows") }
        return value
    }

    private static func padding(_ size: UInt64) -> UInt64 { (8 - size % 8) % 8 }

    /// Running absolute offset of the next section, refusing anything beyond the file.
    private struct Layout {
        var position: Int
        let limit: Int
        init(base: Int, available: Int) {
            position = base
            limit = base + available
        }
        /// Returns the offset before advancing.
        mutating func advance(by size: UInt64) throws -> Int {
            let before = position
            guard size <= UInt64(limit - position) else {
                throw ProfileDataError.truncated("profraw: a section of \(size) bytes at offset \(position) runs past the end (\(limit))")
            }
            position += Int(size)
            return before
        }
    }
}

/// Reading files, or parts of them, into byte arrays with typed errors.
enum FileBytes {
    /// The whole file, read once into its array (no `Data` in between).
    static func readAll(path: String) throws -> [UInt8] {
        do { return try InputFile.read(URL(fileURLWithPath: path)) } catch {
            throw ProfileDataError.io("cannot read \(path) (\(error.reason))")
        }
    }
}
