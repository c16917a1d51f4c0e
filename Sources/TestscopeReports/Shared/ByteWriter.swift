import TestscopeExecution

/// A byte buffer for the large machine-readable outputs: integers and strings are appended as
/// UTF-8 without going through string interpolation (several times faster on big reports).
///
/// Its own storage, not a `[UInt8]`: each append to an array checks uniqueness and capacity and
/// goes through `append(contentsOf:)`, and `coverage.json` is made of tens of millions of small
/// appends (`Array.append` was 18 % of its rendering at 800 files). Not copyable: the storage
/// has one owner.
struct ByteWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written since the last flush.
    private(set) var count = 0

    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// A copy of the bytes written since the last flush, made with one `memcpy` (`Array(UnsafeBufferPointer)`
    /// copied them a byte at a time). Large outputs use `finish()` or `withBytes` instead: no copy.
    var bytes: [UInt8] {
        let count = self.count, base = self.base
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { buffer.baseAddress!.update(from: base, count: count) }
            initialized = count
        }
    }

    /// The bytes, handed over where they were written: copying a file page's rows into an array
    /// was 63 M instructions (1.8 %) of the HTML report at 400 files.
    consuming func finish() -> WrittenBytes {
        let written = WrittenBytes(base: base, count: count)
        discard self
        return written
    }

    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Forgets what was written (the storage is kept).
    mutating func removeAll() { count = 0 }

    /// The bytes written since the last flush, in place (valid only inside `body`).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress else { return }
        copyIn(source, count: buffer.count)
    }

    /// Appends `n` bytes from `source`. Most pieces are short (a row template's text between its
    /// fields, a token's text, a literal): up to 16 bytes, two overlapping loads and stores in place
    /// cost less than a call to `memcpy` (2.3 million of them in the rows of 400 file pages).
    @inline(__always)
    private mutating func copyIn(_ source: UnsafePointer<UInt8>, count n: Int) {
        reserve(n)
        if n <= 16 {
            Self.copySmall(UnsafeRawPointer(source), to: UnsafeMutableRawPointer(base + count), count: n)
        } else {
            (base + count).update(from: source, count: n)
        }
        count += n
    }

    /// Copies at most 16 bytes.
    @inline(__always)
    private static func copySmall(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count n: Int) {
        if n >= 8 {
            let head = source.loadUnaligned(as: UInt64.self), tail = source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 {
            let head = source.loadUnaligned(as: UInt32.self), tail = source.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        } else {
            for i in 0..<n { target.storeBytes(of: source.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self) }
        }
    }

    /// Literals are short (`", \"count\": "`): copied in place (`copyIn`), not through a
    /// `withUTF8Buffer` closure and a `memcpy` call (a million of them in `coverage.json` at 400 files).
    @inline(__always)
    mutating func append(_ text: StaticString) {
        guard text.hasPointerRepresentation else { return text.withUTF8Buffer { append($0) } }
        copyIn(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    mutating func append(string text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            for byte in text.utf8 { append(byte: byte) }
        }
    }

    @inline(__always)
    mutating func append<I: BinaryInteger>(int value: I) { append(decimal: UInt64(value)) }

    /// Digits written two at a time from a table, backwards into place, after counting them with
    /// comparisons (a division per digit to count them and another to write them cost 100
    /// instructions a number: 1.07 million counts and line numbers in an HTML report of 400 files).
    mutating func append(decimal value: UInt64) {
        reserve(20)
        if value < 10 {
            base[count] = UInt8(truncatingIfNeeded: value) &+ 0x30
            count += 1
            return
        }
        var digits = 1
        var rest = value
        while rest >= 10_000 { rest /= 10_000; digits += 4 }
        digits += rest >= 1000 ? 3 : rest >= 100 ? 2 : rest >= 10 ? 1 : 0
        let pairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        let table = pairs.utf8Start
        var v = value
        var at = count + digits
        while v >= 100 {
            let pair = Int(truncatingIfNeeded: v % 100) &* 2
            v /= 100
            at -= 2
            base[at] = table[pair]
            base[at + 1] = table[pair + 1]
        }
        if v >= 10 {
            let pair = Int(truncatingIfNeeded: v) &* 2
            base[at - 2] = table[pair]
            base[at - 1] = table[pair + 1]
        } else {
            base[at - 1] = UInt8(truncatingIfNeeded: v) &+ 0x30
        }
        count += digits
    }

    /// `Format.fixed(value, decimals:)` without building a string (every ratio of coverage.json has one).
    mutating func append(fixed value: Double, decimals: Int) {
        // 0 and 100 are four in five of coverage.json's percentages (66,000 of 82,800 at 400 files).
        if value == 0 || value == 100, decimals <= 8 {
            append(value == 0 ? "0" : "100")
            let zeros: StaticString = ".00000000"
            if decimals > 0 { copyIn(zeros.utf8Start, count: decimals + 1) }
            return
        }
        let (whole, fraction, scale) = Format.fixedParts(value, decimals: decimals)
        guard whole >= 0, fraction >= 0 else { append(string: Format.fixed(value, decimals: decimals)); return }
        append(int: whole)
        guard decimals > 0 else { return }
        append(byte: 0x2E)
        var divisor = scale / 10
        while divisor > 0 {
            append(byte: UInt8(truncatingIfNeeded: fraction / divisor % 10) + 0x30)
            divisor /= 10
        }
    }

    /// A JSON string literal.
    mutating func append(json text: String) {
        append(byte: 0x22)
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped(json: $0) }) == nil {
            Array(text.utf8).withUnsafeBufferPointer { appendEscaped(json: $0) }
        }
        append(byte: 0x22)
    }

    /// Runs of bytes that need no escape are copied in one go; they are found eight bytes at a time
    /// (a byte at a time this loop took 12.7 instructions a byte: 31 M for the 2.4 MB of names and
    /// paths in the 400-file package's coverage.json).
    private mutating func appendEscaped(json utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        let n = utf8.count
        var run = 0
        var i = 0
        while i < n {
            while i + 8 <= n, !Self.anyNeedsJSONEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            // The word that holds one (or the last few bytes), a byte at a time.
            let stop = min(i + 8, n)
            while i < stop {
                let b = base[i]
                i += 1
                guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
                append(UnsafeBufferPointer(rebasing: utf8[run..<(i - 1)]))
                run = i
                append(byte: 0x5C)
                switch b {
                case 0x22: append(byte: 0x22)
                case 0x5C: append(byte: 0x5C)
                case 0x0A: append(byte: 0x6E)
                case 0x0D: append(byte: 0x72)
                case 0x09: append(byte: 0x74)
                default:
                    let hex: StaticString = "0123456789abcdef"
                    append("u00")
                    hex.withUTF8Buffer { digits in
                        append(byte: digits[Int(b >> 4)])
                        append(byte: digits[Int(b & 15)])
                    }
                }
            }
        }
        append(UnsafeBufferPointer(rebasing: utf8[run..<n]))
    }

    /// Whether one of the eight bytes is below 0x20, `"` or `\` (the bit tricks for "has a byte less
    /// than n" and "has a zero byte": exact as to whether one exists, whatever the other bytes hold).
    @inline(__always)
    static func anyNeedsJSONEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs != 0
    }

    /// Hands the bytes to the output when the buffer is large.
    mutating func flush<Output: TextOutput>(to output: inout Output, force: Bool = false) throws {
        guard force || count >= 1 << 16 else { return }
        guard count > 0 else { return }
        try withBytes { try output.write(buffer: $0) }
        count = 0
    }
}

/// Bytes a `ByteWriter` finished, in its storage (freed with this object).
final class WrittenBytes: @unchecked Sendable {
    private let base: UnsafeMutablePointer<UInt8>
    let count: Int

    fileprivate init(base: UnsafeMutablePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { base.deallocate() }

    /// No bytes.
    static let empty = ByteWriter(capacity: 16).finish()

    /// The bytes in place (valid only inside `body`).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(UnsafeBufferPointer(start: base, count: count)) }
    }

    /// A copy (tests compare them).
    var array: [UInt8] { withBytes { Array($0) } }
}

extension TextOutput {
    /// Writes UTF-8 bytes (renderers that build bytes use this).
    package mutating func write(bytes: [UInt8]) throws {
        try write(String(decoding: bytes, as: UTF8.self))
    }
}

extension AtomicFileWriter {
    package func write(bytes: [UInt8]) throws {
        try write(bytes: bytes[...])
    }
}

/// Per-file pieces of a format rendered on every core, a batch at a time, and written in order:
/// the pieces are independent, and one core wrote `coverage.json` of 800 files (46 MB) in 0.23 s.
/// A batch's pieces are held until they are written: 16 files, not 64, took 3.3 MB off the peak of
/// `coverage.json` at 800 files (57 KB a file) in the same time. Each piece is written from the
/// writer it was rendered into: copied into an array, then into the batch's, it was copied twice
/// (46 M instructions, 2.4 % of `coverage.json` at 400 files).
enum PiecesInParallel {
    static func write<Item, Output: TextOutput>(_ items: [Item], batchSize: Int = 16, to out: inout Output,
                                                capacity: (Item) -> Int = { _ in 1 << 16 },
                                                _ render: (Int, Item, inout ByteWriter) throws -> Void) throws {
        var start = 0
        while start < items.count {
            let end = min(start + batchSize, items.count)
            let pieces = Parallel.map(end - start) { i -> Result<WrittenBytes, any Error> in
                Result {
                    var piece = ByteWriter(capacity: capacity(items[start + i]))
                    try render(start + i, items[start + i], &piece)
                    return piece.finish()
                }
            }
            for piece in pieces { try piece.get().withBytes { try out.write(buffer: $0) } }
            start = end
        }
    }
}
