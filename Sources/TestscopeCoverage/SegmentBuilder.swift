import Foundation
import TestscopeProfileData

/// llvm's `SegmentBuilder::buildSegments` (CoverageMapping.cpp), reproduced with its release-build
/// behaviour (no assertions, overlapping regions handled as llvm handles them). Reusable: the buffers
/// survive from one file to the next.
struct SegmentBuilder {
    /// A region as the sweep sees it: locations as `(line << 32) | column`, the count unclamped.
    struct Region {
        var start: UInt64
        var end: UInt64
        var count: UInt64
        var kind: MappingRegionKind
    }

    /// The regions to build from; callers append, `build()` consumes them.
    var regions: [Region] = []
    private var active: [Int32] = []
    private var completed: [Int32] = []
    private var sortKeys: [(end: UInt64, position: Int32)] = []
    private var segments: [ExportSegment] = []

    mutating func add(_ region: CountedRegion) {
        regions.append(Region(start: region.start, end: region.end, count: region.count, kind: region.kind))
    }

    /// Sorts, combines and sweeps `regions` (then empties it) into segments, counts clamped as export prints them.
    mutating func build() -> [ExportSegment] {
        defer { regions.removeAll(keepingCapacity: true) }
        guard !regions.isEmpty else { return [] }
        // Start ascending, end descending (the enclosing region first), kind ascending.
        regions.sort { a, b in
            if a.start != b.start { return a.start < b.start }
            if a.end != b.end { return a.end > b.end }
            return a.kind.rawValue < b.kind.rawValue
        }
        let count = combine()
        segments = []
        segments.reserveCapacity(count * 2 + 1)
        active.removeAll(keepingCapacity: true)
        sweep(count)
        for i in segments.indices where segments[i].count > UInt64(Int64.max) {
            segments[i].count = exportClamped(segments[i].count)
        }
        return segments
    }

    /// `combineRegions`: a region with the same range as the one before becomes part of it; its count
    /// is added (wrapping, as uint64 in C++) only when the kinds agree. Returns the combined count.
    private mutating func combine() -> Int {
        var active = 0
        for i in 1..<regions.count {
            if regions[active].start != regions[i].start || regions[active].end != regions[i].end {
                active += 1
                regions[active] = regions[i]
            } else if regions[i].kind == regions[active].kind {
                regions[active].count &+= regions[i].count
            }
        }
        return active + 1
    }

    /// `startSegment`.
    private mutating func startSegment(_ region: Region, at location: UInt64, entry: Bool, forceSkipped: Bool = false) {
        let hasCount = !forceSkipped && region.kind != .skipped
        if !entry && !forceSkipped, let last = segments.last,
           last.hasCount == hasCount && last.count == region.count && !last.isRegionEntry {
            return
        }
        let line = UInt32(truncatingIfNeeded: location >> 32), column = UInt32(truncatingIfNeeded: location)
        if hasCount {
            segments.append(ExportSegment(line: line, column: column, count: region.count, hasCount: true,
                                          isRegionEntry: entry, isGapRegion: region.kind == .gap))
        } else {
            segments.append(ExportSegment(line: line, column: column, count: 0, hasCount: false,
                                          isRegionEntry: entry, isGapRegion: false))
        }
    }

    /// `buildSegmentsImpl` over the first `count` (combined) regions.
    private mutating func sweep(_ count: Int) {
        for index in 0..<count {
            let region = regions[index]
            let start = region.start
            // Stable partition: the regions that ended by `start` move behind the ones still open.
            if active.contains(where: { regions[Int($0)].end <= start }) {
                completed.removeAll(keepingCapacity: true)
                var open = 0
                for i in active.indices {
                    let r = active[i]
                    if regions[Int(r)].end <= start { completed.append(r) } else { active[open] = r; open += 1 }
                }
                // Element-wise: `removeLast(k)` and `append(contentsOf:)` go through the generic
                // `replaceSubrange` (1 % of a text report's CPU at 800 files).
                for (i, r) in completed.enumerated() { active[open + i] = r }
                completeRegions(until: start, firstCompleted: open)
            }
            let isGap = region.kind == .gap
            if start == region.end {
                // A zero-length region never becomes active: it takes its predecessor's count.
                let skipped = index + 1 == count || region.kind == .skipped
                startSegment(active.last.map { regions[Int($0)] } ?? region, at: start, entry: !isGap, forceSkipped: skipped)
                if skipped, let last = active.last { startSegment(regions[Int(last)], at: start, entry: false) }
                continue
            }
            if index + 1 == count || start != regions[index + 1].start {
                startSegment(region, at: start, entry: !isGap)
            }
            active.append(Int32(index))
        }
        if !active.isEmpty { completeRegions(until: nil, firstCompleted: 0) }
    }

    /// `completeRegionsUntil`: closing segments for `active[firstCompleted...]`, then pops them.
    private mutating func completeRegions(until location: UInt64?, firstCompleted f: Int) {
        sortCompletedByEnd(from: f)
        let n = active.count
        var k = f + 1
        while k < n {
            let previousEnd = regions[Int(active[k - 1])].end
            if let location, previousEnd == location { break }
            var closing = regions[Int(active[k])]
            if previousEnd != closing.end {
                // The count of the last completed region that ends where this one does.
                for j in (k + 1)..<n where regions[Int(active[j])].end == closing.end {
                    closing = regions[Int(active[j])]
                }
                startSegment(closing, at: previousEnd, entry: false)
            }
            k += 1
        }
        let last = regions[Int(active[n - 1])]
        if f > 0, last.end != location {
            // Fill the gap up to the next region with the innermost region still open.
            startSegment(regions[Int(active[f - 1])], at: last.end, entry: false)
        } else if f == 0, location.map({ $0 != last.end }) ?? true {
            // Nothing is open any more: the code up to the next region is unmapped.
            startSegment(last, at: last.end, entry: false, forceSkipped: true)
        }
        for _ in f..<n { active.removeLast() }
    }

    /// `std::stable_sort` of the completed tail by end location.
    private mutating func sortCompletedByEnd(from f: Int) {
        let n = active.count
        if n - f <= 16 {
            var i = f + 1
            while i < n {
                let moving = active[i]
                let end = regions[Int(moving)].end
                var j = i
                while j > f && regions[Int(active[j - 1])].end > end {
                    active[j] = active[j - 1]
                    j -= 1
                }
                active[j] = moving
                i += 1
            }
            return
        }
        // Many regions closing at once: sort (end, position) pairs, which makes any sort stable.
        sortKeys.removeAll(keepingCapacity: true)
        for i in f..<n { sortKeys.append((regions[Int(active[i])].end, Int32(i))) }
        sortKeys.sort { $0.end != $1.end ? $0.end < $1.end : $0.position < $1.position }
        completed.removeAll(keepingCapacity: true)
        for key in sortKeys { completed.append(active[Int(key.position)]) }
        for (i, r) in completed.enumerated() { active[f + i] = r }
    }
}

/// llvm-cov's per-file view of a set of function records: which files (`getUniqueSourceFiles`)
/// and each file's segments (`getCoverageForFile`), exactly as `llvm-cov export` prints them in `files[]`.
package enum NativeFileCoverage {
    /// The sorted unique filenames of the records, compared as bytes (llvm's `StringRef` order),
    /// not as Swift `String`s (which equate canonically equivalent Unicode).
    package static func uniqueSourceFiles(_ functions: [CountedFunction]) -> [String] {
        uniqueSourceFiles(lists: functions.map(\.filenames))
    }

    /// The same over records' filename lists.
    static func uniqueSourceFiles(lists: [[String]]) -> [String] {
        var all: [String] = []
        // A run of functions sharing one filenames array (the functions of one file) adds its names
        // once: sorting every function's names was 2.5 % of the text report at 800 files.
        for run in FilenameRuns(lists) { all.append(contentsOf: lists[run.lowerBound]) }
        all.sort { ByteString.compare($0, $1) < 0 }
        var unique: [String] = []
        unique.reserveCapacity(all.count)
        for name in all where !(unique.last.map { ByteString.equal($0, name) } ?? false) {
            unique.append(name)
        }
        return unique
    }

    /// `files[]` with segments, in export order.
    package static func files(_ functions: [CountedFunction]) -> [ExportFile] {
        let index = FilenameIndex(functions)
        var builder = SegmentBuilder()
        return uniqueSourceFiles(functions).map { filename in
            for f in index.records(for: filename) {
                let ids = FileIDs(of: functions[f].filenames, equalTo: filename)
                for region in functions[f].regions where ids.contains(region.fileID) { builder.add(region) }
            }
            return ExportFile(filename: filename, segments: builder.build())
        }
    }
}

/// llvm's `FilenameHash2RecordIndices`: record indices per filename, looked up imprecisely (Swift
/// hashing equates canonically equivalent names) and then filtered to byte-equal names by the caller.
struct FilenameIndex {
    private var recordsByName: [String: [Int]] = [:]

    init(_ functions: [CountedFunction]) { self.init(lists: functions.map(\.filenames)) }

    init(lists: [[String]]) {
        // Each name once per run of functions sharing a filenames array (one hash per run, not per function).
        for run in FilenameRuns(lists) {
            let names = lists[run.lowerBound]
            for (k, name) in names.enumerated() where !names[..<k].contains(name) {
                recordsByName[name, default: []].append(contentsOf: run)
            }
        }
    }

    /// The records that may name `filename`, ascending.
    func records(for filename: String) -> [Int] { recordsByName[filename] ?? [] }
}

/// Runs of consecutive functions whose filenames are one shared array (`FilenameListCache`).
struct FilenameRuns: Sequence, IteratorProtocol {
    private let lists: [[String]]
    private var position = 0

    init(_ functions: [CountedFunction]) { self.init(functions.map(\.filenames)) }

    init(_ lists: [[String]]) { self.lists = lists }

    mutating func next() -> Range<Int>? {
        guard position < lists.count else { return nil }
        let start = position
        let base = Self.storage(of: lists[start])
        position += 1
        while position < lists.count, base != nil, Self.storage(of: lists[position]) == base { position += 1 }
        return start..<position
    }

    private static func storage(of list: [String]) -> UnsafeRawPointer? {
        list.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
}

/// `gatherFileIDs`: the file ids of a record whose name is byte-equal to a file's (names compared
/// once per record, not once per region).
struct FileIDs {
    private var low: UInt64 = 0
    private var high: Set<UInt32> = []

    init(of filenames: [String], equalTo filename: String) {
        for (id, name) in filenames.enumerated() where ByteString.equal(name, filename) {
            if id < 64 { low |= 1 << UInt64(id) } else { high.insert(UInt32(id)) }
        }
    }

    func contains(_ id: UInt32) -> Bool { id < 64 ? low & (1 << UInt64(id)) != 0 : high.contains(id) }

    /// The record does not name the file at all.
    var isEmpty: Bool { low == 0 && high.isEmpty }
}

/// Strings compared as their UTF-8 bytes, like llvm's `StringRef` (Swift's `==` and `<` equate
/// canonically equivalent Unicode, which llvm-cov treats as different files).
package enum ByteString {
    /// memcmp order: negative, zero or positive.
    static func compare(_ a: String, _ b: String) -> Int {
        withBytes(a) { x in
            withBytes(b) { y in
                let common = min(x.count, y.count)
                if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let c = memcmp(p, q, common)
                    if c != 0 { return Int(c) }
                }
                return x.count - y.count
            }
        }
    }

    static func equal(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && compare(a, b) == 0 }

    /// An in-process hash of `s`'s bytes, 8 at a time, folded into `seed`: only to pick candidates
    /// that are then compared (FNV-1a a byte at a time and `Hasher.combine(bytes:)` were 4.5 % of a
    /// text report's instructions). Not stable across versions: never written anywhere.
    package static func hash(_ s: String, seed: UInt64 = 0) -> UInt64 {
        withBytes(s) { bytes in
            var h = seed ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
            guard let base = UnsafeRawPointer(bytes.baseAddress) else { return mix(h) }
            var i = 0
            while i + 8 <= bytes.count {
                h = (h ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                h ^= h >> 29
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                tail |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            return mix((h ^ tail) &* 0x94D0_49BB_1331_11EB)
        }
    }

    /// False when no two of `count` strings (string `i` is `string(i)`) can be equal: all ASCII (so
    /// `String`'s canonical equality is byte equality) and their hashes all differ. Inlinable, so
    /// that `string` is inlined where it is called.
    @inlinable
    package static func mayRepeat(_ count: Int, _ string: (Int) -> String) -> Bool {
        var hashes: [UInt64] = []
        hashes.reserveCapacity(count)
        for i in 0..<count {
            guard let hash = asciiHash(string(i)) else { return true }
            hashes.append(hash)
        }
        hashes.sort()
        for i in hashes.indices.dropFirst() where hashes[i] == hashes[i - 1] { return true }
        return false
    }

    /// `hash(s)`, or nil when `s` is not all ASCII (checked in the same pass).
    package static func asciiHash(_ s: String) -> UInt64? {
        let ascii = withBytes(s) { bytes in
            var high: UInt8 = 0
            for byte in bytes { high |= byte }
            return high < 0x80
        }
        return ascii ? hash(s) : nil
    }

    /// The string's UTF-8 in place (a native string's storage; a copy only for a bridged one).
    /// `var s = s; s.withUTF8` retained and released every string it was given.
    /// Inlinable: called from another module unspecialized, each call looked up generic metadata.
    @inlinable @inline(__always)
    package static func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = s.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(s.utf8).withUnsafeBufferPointer(body)
    }

    /// The SplitMix64 finalizer.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
