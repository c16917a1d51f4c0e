/// A binary's `__llvm_covfun` bytes, kept while its records are still to be decoded: read from the
/// binary in pieces of about 256 KiB that start where a record starts (`read`), each let go once every
/// record whose mapping lies in it was decoded for the last time (`letGo`, after `count` made the
/// tally). The native report decodes each record once, a batch of files at a time, so the section
/// shrinks while the report grows: held whole to the end, it was 2.4 MB of the peak at 400 files.
///
/// A class, shared by every copy of its `CoverageMappingRecords`: `count` and `letGo` change it, and
/// they are called only between the parallel loops that read it (`EncodedRecordStream`, on the
/// thread that runs them), so no read overlaps a change (hence `@unchecked Sendable`, and no dynamic
/// exclusivity checks: they were 8 M instructions of a text report at 400 files). A piece let go is
/// empty: a record read again after it fails to decode (a "truncated" error), never reads other bytes.
final class MappingBytes: @unchecked Sendable {
    /// The pieces, and where each one's first byte is in the section.
    @exclusivity(unchecked) private var pieces: [[UInt8]]
    private let origins: [Int]
    /// Per piece, how many of the records counted by `count` are still to be let go.
    @exclusivity(unchecked) private var remaining: [Int32] = []
    /// Per record (in the order `count` was given them), its piece.
    @exclusivity(unchecked) private var pieceOfRecord: [Int32] = []

    /// One piece (a section given as bytes: tests, fuzzing).
    init(_ bytes: [UInt8]) {
        pieces = [bytes]
        origins = [0]
    }

    /// Pieces that follow each other: `origins[k]` is where `pieces[k]` starts in the section.
    init(pieces: [[UInt8]], origins: [Int]) {
        precondition(pieces.count == origins.count && !pieces.isEmpty, "MappingBytes: one origin per piece, at least one piece")
        self.pieces = pieces
        self.origins = origins
    }

    /// The pieces with their origins, in order (reading the record headers).
    var all: [(bytes: [UInt8], origin: Int)] { Array(zip(pieces, origins)) }

    /// A reader over `start..<end` of the section, where record `record`'s mapping starts (`count`
    /// numbered the records; before it, `start` finds the piece); offsets in messages still the section's.
    func reader(record: Int, start: Int, end: Int, context: String) throws -> ByteReader {
        guard pieces.count > 1 else { return try ByteReader(pieces[0], start: start, end: end, context: context) }
        let k = piece(record: record, start: start)
        return try ByteReader(pieces[k], start: start - origins[k], end: end - origins[k], context: context, origin: origins[k])
    }

    /// `body` given the piece of record `record`, whose mapping starts at `start`, in place, and
    /// where that piece starts.
    func withPiece<R>(record: Int, start: Int, _ body: (UnsafeBufferPointer<UInt8>, Int) -> R) -> R {
        let k = pieces.count > 1 ? piece(record: record, start: start) : 0
        return pieces[k].withUnsafeBufferPointer { body($0, origins[k]) }
    }

    /// Counts the records of each piece (`starts`: where each record's mapping starts, by record), so
    /// that `letGo` can free a piece with its last record; a piece without records is freed now.
    /// Once only: later calls do nothing.
    func count(starts: [UInt32]) {
        guard remaining.isEmpty, pieces.count > 1 else { return }
        remaining = [Int32](repeating: 0, count: pieces.count)
        // Records mostly follow the section's order: the previous record's piece is tried first.
        var k = 0
        pieceOfRecord = starts.map { start in
            let offset = Int(start)
            if !(origins[k] <= offset && (k + 1 == origins.count || offset < origins[k + 1])) { k = index(of: offset) }
            return Int32(k)
        }
        for k in pieceOfRecord { remaining[Int(k)] += 1 }
        for k in remaining.indices where remaining[k] == 0 { pieces[k] = [] }
    }

    private func piece(record: Int, start: Int) -> Int {
        record < pieceOfRecord.count ? Int(pieceOfRecord[record]) : index(of: start)
    }

    /// Record `record` (as `count` numbered them) will not be read again: its piece is let go with
    /// the last of its records. Does nothing before `count`.
    func letGo(record: Int) {
        guard !pieceOfRecord.isEmpty else { return }
        let k = Int(pieceOfRecord[record])
        remaining[k] -= 1
        if remaining[k] == 0 { pieces[k] = [] }
    }

    /// The last piece that starts at or before `offset`.
    private func index(of offset: Int) -> Int {
        var low = 0, high = origins.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if origins[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return low
    }
}

extension MappingBytes {
    /// Bytes of a piece that is let go as a whole: at least this many (above glibc's default 128 KiB
    /// threshold for a block it maps on its own, so that a piece let go can leave the process at once).
    static let pieceSize = 256 << 10

    /// The covfun `sections` of `elf` in pieces of about `pieceSize` bytes, each starting where a
    /// record starts (the record headers walked through a 64 KiB window, each one's size field read
    /// where it is). Several sections (relocatable objects) follow each other, each padded to 8
    /// bytes, as llvm reads them. Where a header does not fit, the rest of its section is one
    /// piece: reading the records says why.
    static func read(_ sections: [ELFFile.Section], of elf: ELFFile, pieceSize: Int = pieceSize) throws -> MappingBytes {
        try elf.withPieces { read in
            var pieces: [[UInt8]] = [], origins: [Int] = []
            var base = 0
            for section in sections {
                let size = try elf.size(of: section)
                let padded = (size + 7) / 8 * 8
                var cuts = [0]
                var window: [UInt8] = [], windowStart = 0
                var position = 0
                // A record: NameRef (8), DataSize (4), FuncHash (8), FilenamesRef (8), the mapping, padding to 8.
                while position + 12 <= size {
                    if position + 12 > windowStart + window.count {
                        windowStart = position
                        window = try read(section, position, min(1 << 16, size - position))
                    }
                    let at = position + 8 - windowStart
                    let dataSize = Int(window[at]) | Int(window[at + 1]) << 8 | Int(window[at + 2]) << 16 | Int(window[at + 3]) << 24
                    let next = (position + 28 + dataSize + 7) / 8 * 8
                    guard next <= padded else { break }
                    if next - cuts.last! >= pieceSize && next < size { cuts.append(next) }
                    position = next
                }
                for (k, cut) in cuts.enumerated() {
                    let end = k + 1 < cuts.count ? cuts[k + 1] : padded
                    pieces.append(try read(section, cut, end - cut))
                    origins.append(base + cut)
                }
                base += padded
            }
            return pieces.isEmpty ? MappingBytes([]) : MappingBytes(pieces: pieces, origins: origins)
        }
    }
}
