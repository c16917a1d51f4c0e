/// One record of an indexed profile: a function's counters for one FuncHash.
package struct IndexedProfileRecord: Sendable, Equatable {
    /// The PGO name (the hash table's key).
    package var name: String
    /// MD5-low64 of the key bytes, the NameRef the coverage mapping uses.
    package var nameRef: UInt64
    package var funcHash: UInt64
    package var counters: [UInt64]
}

/// A decoded `.profdata` (indexed profile): every record of its hash table, and its binary IDs.
package struct IndexedProfile: Sendable {
    package var version: UInt64
    /// In hash-table order (bucket by bucket), one entry per (name, FuncHash).
    package var records: [IndexedProfileRecord]
    package var binaryIDs: [String]
}

/// Reads indexed profiles (`llvm-profdata merge` output), versions 4…12, little-endian regardless of
/// host, following `IndexedInstrProfReader` and `OnDiskHashTable.h`.
package enum IndexedProfileReader {
    package static let supportedVersions: ClosedRange<UInt64> = 4...12
    static let magic: UInt64 = 0x8169_666f_7270_6cff

    package static func read(path: String) throws -> IndexedProfile {
        try read(bytes: FileBytes.readAll(path: path))
    }

    package static func read(bytes: [UInt8]) throws -> IndexedProfile {
        var records: [IndexedProfileRecord] = []
        let (version, binaryIDs) = try read(bytes: bytes) { key, nameRef, hash, counters in
            records.append(IndexedProfileRecord(name: String(decoding: key, as: UTF8.self), nameRef: nameRef,
                                                funcHash: hash, counters: counters))
        }
        return IndexedProfile(version: version, records: records, binaryIDs: binaryIDs)
    }

    /// Reads the profile, handing each record (key bytes, NameRef, FuncHash, counters) to `record`
    /// as it is read; returns the version and binary IDs. The merge uses this: a name `String` and
    /// a record per function were ~10 MB of garbage at 800 files. `names` is told, before the first
    /// record, how many names the hash table announces (at most one per 24 bytes of the file).
    package static func read(bytes: [UInt8], names: (Int) -> Void = { _ in },
                            record: (ArraySlice<UInt8>, UInt64, UInt64, [UInt64]) -> Void) throws
        -> (version: UInt64, binaryIDs: [String]) {
        var reader = ByteReader(bytes, context: "profdata")
        let magicField = try reader.u64("magic")
        guard magicField == magic else {
            if magicField == RawProfileReader.magic64 {
                throw ProfileDataError.corrupt("profdata: this is a raw profile (.profraw)")
            }
            throw ProfileDataError.corrupt("profdata: bad magic 0x\(String(magicField, radix: 16))")
        }
        let versionField = try reader.u64("version")
        let version = versionField & 0xffff_ffff
        guard versionField >> 32 == 0 else {
            throw ProfileDataError.unsupported("profdata variant bits 0x\(String(versionField >> 32, radix: 16)) (IR, context-sensitive, byte coverage, entry-only, memprof or temporal profile)")
        }
        guard supportedVersions.contains(version) else {
            throw ProfileDataError.unsupported("profdata version \(version) (only \(supportedVersions))")
        }
        _ = try reader.u64("unused")
        let hashType = try reader.u64("HashType")
        guard hashType == 0 else { throw ProfileDataError.unsupported("profdata hash type \(hashType) (only MD5)") }
        let hashOffset = try reader.u64("HashOffset")
        // Header::size(): the later fields exist from the version that introduced them.
        if version >= 8 { _ = try reader.u64("MemProfOffset") }
        let binaryIDOffset = version >= 9 ? try reader.u64("BinaryIdOffset") : 0
        if version >= 10 { _ = try reader.u64("TemporalProfTracesOffset") }
        if version >= 12 { _ = try reader.u64("VTableNamesOffset") }

        // The summary is not needed; it only has to be valid enough to skip.
        let summaryFields = try reader.u64("NumSummaryFields")
        let cutoffs = try reader.u64("NumCutoffEntries")
        guard summaryFields < 1 << 20, cutoffs < 1 << 20 else { throw ProfileDataError.corrupt("profdata: absurd summary size") }
        try reader.skip(summaryFields * 8 + cutoffs * 24, "summary")
        let payloadStart = reader.offset

        try readTable(bytes, hashOffset: hashOffset, payloadStart: payloadStart, version: version, names: names, record: record)
        var binaryIDs: [String] = []
        if binaryIDOffset != 0 {
            guard binaryIDOffset <= UInt64(bytes.count) else {
                throw ProfileDataError.truncated("profdata: binary IDs at \(binaryIDOffset) past the end")
            }
            var ids = try ByteReader(bytes, start: Int(binaryIDOffset), end: bytes.count, context: "profdata binary IDs")
            let size = try ids.u64("binary IDs size")
            let start = ids.offset
            _ = try ids.require(size, "binary IDs")
            binaryIDs = try RawProfileReader.readBinaryIDs(bytes, start: start, end: start + Int(size), context: "profdata binary IDs")
        }
        return (version, binaryIDs)
    }

    /// Every entry of the on-disk chained hash table, bucket by bucket (the order `llvm-profdata
    /// show` iterates the payload in).
    private static func readTable(_ bytes: [UInt8], hashOffset: UInt64, payloadStart: Int, version: UInt64, names: (Int) -> Void,
                                  record: (ArraySlice<UInt8>, UInt64, UInt64, [UInt64]) -> Void) throws {
        guard hashOffset >= UInt64(payloadStart), hashOffset <= UInt64(bytes.count) else {
            throw ProfileDataError.corrupt("profdata: hash table offset \(hashOffset) outside the file")
        }
        var table = try ByteReader(bytes, start: Int(hashOffset), end: bytes.count, context: "profdata hash table")
        let numBuckets = try table.u64("NumBuckets")
        let numEntries = try table.u64("NumEntries")
        _ = try table.require(try product(numBuckets, 8), "bucket offsets")
        names(Int(min(numEntries, UInt64(bytes.count / 24))))
        var entriesSeen: UInt64 = 0
        for _ in 0..<Int(numBuckets) {
            let bucketOffset = try table.u64("bucket offset")
            if bucketOffset == 0 { continue }
            // Buckets live in the payload, between the summary and the bucket table.
            guard bucketOffset >= UInt64(payloadStart), bucketOffset < hashOffset else {
                throw ProfileDataError.corrupt("profdata: bucket at \(bucketOffset) outside the payload")
            }
            var bucket = try ByteReader(bytes, start: Int(bucketOffset), end: Int(hashOffset), context: "profdata bucket")
            let items = try bucket.u16("bucket item count")
            for _ in 0..<items {
                // The table stores each key's hash, `ComputeHash` = MD5 low 64 bits: the NameRef.
                let nameRef = try bucket.u64("key hash")
                let keyLength = try bucket.u64("key length")
                let dataLength = try bucket.u64("data length")
                let keyStart = bucket.offset
                try bucket.skip(keyLength, "key")
                let key = bytes[keyStart..<bucket.offset]
                var data = try bucket.slice(dataLength, "data")
                try readData(&data, version: version) { hash, counters in record(key, nameRef, hash, counters) }
                entriesSeen += 1
            }
        }
        guard entriesSeen == numEntries else {
            throw ProfileDataError.corrupt("profdata: hash table announces \(numEntries) entries, buckets hold \(entriesSeen)")
        }
    }

    /// `InstrProfLookupTrait::ReadData`: one record per FuncHash for a key.
    private static func readData(_ data: inout ByteReader, version: UInt64,
                                 _ emit: (UInt64, [UInt64]) -> Void) throws {
        guard data.remaining % 8 == 0 else { throw ProfileDataError.corrupt("profdata: record data not a multiple of 8") }
        while !data.isAtEnd {
            let hash = try data.u64("FuncHash")
            let count = try data.u64("NumCounters")
            let counters = try data.u64s(try data.require(try product(count, 8), "counters") / 8, "counters")
            if version >= 11 {
                let bitmapBytes = try data.u64("NumBitmapBytes")
                try data.skip(try product(bitmapBytes, 8), "bitmap bytes")
            }
            // Value-profile data (v ≥ 3), skipped whole.
            try data.skipValueProfileData("profdata")
            emit(hash, counters)
        }
    }

    private static func product(_ count: UInt64, _ size: UInt64) throws -> UInt64 {
        let (value, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow else { throw ProfileDataError.corrupt("profdata: size overflows") }
        return value
    }
}
