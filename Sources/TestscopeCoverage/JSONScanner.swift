/// A pull reader over UTF-8 JSON bytes: the caller walks the document in schema order and
/// decodes numbers and strings in place, without building a tree (several times faster than
/// `JSONSerialization` on llvm-cov exports, and with no per-value allocations).
struct JSONScanner {
    /// Why the bytes are not the JSON we expected, with the byte offset.
    struct Failure: Error {
        var message: String
        var offset: Int
        /// The record it is about ("segment 3 of file …"), when the JSON is well-formed but a value is not
        /// one an export can hold.
        var record: String?
        /// A value read in full but out of range (negative, not an integer, too large): the reader names its record.
        var isValueProblem = false

        init(message: String, offset: Int, record: String? = nil, valueProblem: Bool = false) {
            self.message = message
            self.offset = offset
            self.record = record
            self.isValueProblem = valueProblem
        }
    }

    let base: UnsafePointer<UInt8>
    let count: Int
    var position = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    // MARK: Primitives

    @inline(__always)
    mutating func skipWhitespace() {
        while position < count {
            let c = base[position]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { position += 1 } else { return }
        }
    }

    @inline(__always)
    mutating func peek() throws -> UInt8 {
        skipWhitespace()
        guard position < count else { throw truncated() }
        return base[position]
    }

    func truncated() -> Failure {
        Failure(message: "the JSON ends too early (truncated?)", offset: position)
    }

    func unexpected(_ expected: String) -> Failure {
        if position >= count { return truncated() }
        let byte = base[position]
        let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        return Failure(message: "expected \(expected) but found \(shown)", offset: position)
    }

    @inline(__always)
    mutating func expect(_ byte: UInt8, _ what: String) throws {
        guard try peek() == byte else { throw unexpected(what) }
        position += 1
    }

    // MARK: Containers

    mutating func beginObject() throws { try expect(UInt8(ascii: "{"), "'{'") }
    mutating func beginArray() throws { try expect(UInt8(ascii: "["), "'['") }

    /// The next key of an object as a byte range, or nil at its closing brace.
    /// `first` must start as true for each object.
    mutating func nextKey(first: inout Bool) throws -> Range<Int>? {
        var c = try peek()
        if c == UInt8(ascii: "}") { position += 1; return nil }
        if !first {
            guard c == UInt8(ascii: ",") else { throw unexpected("',' or '}'") }
            position += 1
            c = try peek()
        }
        first = false
        guard c == UInt8(ascii: "\"") else { throw unexpected("a key string") }
        let range = try rawStringRange()
        try expect(UInt8(ascii: ":"), "':'")
        return range
    }

    /// True while the array has another element; `first` must start as true for each array.
    mutating func nextElement(first: inout Bool) throws -> Bool {
        let c = try peek()
        if c == UInt8(ascii: "]") { position += 1; return false }
        if !first {
            guard c == UInt8(ascii: ",") else { throw unexpected("',' or ']'") }
            position += 1
        }
        first = false
        return true
    }

    /// Compares a key range with an ASCII literal.
    @inline(__always)
    func key(_ range: Range<Int>, is literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let lit = literal.utf8Start
        var i = 0
        while i < range.count {
            if base[range.lowerBound + i] != lit[i] { return false }
            i += 1
        }
        return true
    }

    // MARK: Strings

    /// Skips a string and returns the range of its raw (still escaped) contents.
    mutating func rawStringRange() throws -> Range<Int> {
        try expect(UInt8(ascii: "\""), "a string")
        let start = position
        while position < count {
            let c = base[position]
            if c == UInt8(ascii: "\"") {
                let range = start..<position
                position += 1
                return range
            }
            if c == UInt8(ascii: "\\") { position += 2 } else { position += 1 }
        }
        throw truncated()
    }

    /// Reads a string value, decoding escapes.
    mutating func readString() throws -> String {
        let range = try rawStringRange()
        var hasEscape = false
        for i in range where base[i] == UInt8(ascii: "\\") { hasEscape = true; break }
        let raw = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
        if !hasEscape { return String(decoding: raw, as: UTF8.self) }
        return try Self.unescape(raw, offset: range.lowerBound)
    }

    static func unescape(_ raw: UnsafeBufferPointer<UInt8>, offset: Int) throws -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) throws -> UInt32 {
            guard at + 4 <= raw.count else { throw Failure(message: "bad \\u escape", offset: offset + at) }
            var value: UInt32 = 0
            for k in 0..<4 {
                let c = raw[at + k]
                let digit: UInt32
                switch c {
                case 0x30...0x39: digit = UInt32(c - 0x30)
                case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
                default: throw Failure(message: "bad \\u escape", offset: offset + at)
                }
                value = value << 4 | digit
            }
            return value
        }
        while i < raw.count {
            let c = raw[i]
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            guard i + 1 < raw.count else { throw Failure(message: "bad escape", offset: offset + i) }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                var scalar = try hex4(i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar), i + 6 <= raw.count,
                   raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u") {
                    let low = try hex4(i + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(s)).utf8))
            default: out.append(e)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Scalars

    /// Reads a count or a line/column number strictly: a non-negative integer below 2^64, written
    /// without fraction or exponent (what llvm-cov writes). Anything else is a `Failure` saying what
    /// it is, so junk in an export is refused instead of read as some other number.
    mutating func readStrictUInt64(_ what: String) throws -> UInt64 {
        let c = try peek()
        let start = position
        if c == UInt8(ascii: "-") {
            position += 1
            try skipNumberTail()
            throw Failure(message: "\(what) is negative (\(text(start..<position)))", offset: start, valueProblem: true)
        }
        guard c >= 0x30 && c <= 0x39 else { throw unexpected("\(what) (a number)") }
        var value: UInt64 = 0
        var overflow = false
        while position < count {
            let d = base[position]
            guard d >= 0x30 && d <= 0x39 else { break }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(d - 0x30))
            if o1 || o2 { overflow = true } else { value = a }
            position += 1
        }
        if position < count, base[position] == UInt8(ascii: ".") || base[position] | 0x20 == UInt8(ascii: "e") {
            try skipNumberTail()
            throw Failure(message: "\(what) is not an integer (\(text(start..<position)))", offset: start, valueProblem: true)
        }
        if overflow {
            throw Failure(message: "\(what) \(text(start..<position)) is 2^64 or more", offset: start, valueProblem: true)
        }
        return value
    }

    /// The bytes of `range` as text, at most 40 of them (for messages).
    func text(_ range: Range<Int>) -> String {
        let shown = range.lowerBound..<min(range.upperBound, range.lowerBound + 40)
        let s = String(decoding: UnsafeBufferPointer(start: base + shown.lowerBound, count: shown.count), as: UTF8.self)
        return shown.count < range.count ? s + "…" : s
    }

    private mutating func skipNumberTail() throws {
        while position < count {
            let d = base[position]
            if (d >= 0x30 && d <= 0x39) || d == UInt8(ascii: ".") || d == UInt8(ascii: "e")
                || d == UInt8(ascii: "E") || d == UInt8(ascii: "+") || d == UInt8(ascii: "-") {
                position += 1
            } else { break }
        }
    }

    mutating func readBool() throws -> Bool {
        let c = try peek()
        if c == UInt8(ascii: "t"), literal("true") {
            position += 4
            return true
        }
        if c == UInt8(ascii: "f"), literal("false") {
            position += 5
            return false
        }
        if c >= 0x30 && c <= 0x39 { return try readStrictUInt64("a flag") != 0 }
        throw unexpected("true or false")
    }

    // MARK: Skipping

    /// Skips any one value (object, array, string, number or literal).
    mutating func skipValue() throws {
        var depth = 0
        repeat {
            let c = try peek()
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { throw unexpected("a value") }
                depth -= 1
                position += 1
            case UInt8(ascii: "\""):
                _ = try rawStringRange()
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                guard depth > 0 else { throw unexpected("a value") }
                position += 1
            case UInt8(ascii: "-"), 0x30...0x39:
                position += 1
                try skipNumberTail()
            case UInt8(ascii: "t"), UInt8(ascii: "n"), UInt8(ascii: "f"):
                let word: StaticString = c == UInt8(ascii: "t") ? "true" : c == UInt8(ascii: "n") ? "null" : "false"
                guard literal(word) else { throw unexpected("a value") }
                position += word.utf8CodeUnitCount
            default:
                throw unexpected("a value")
            }
        } while depth > 0
    }

    /// Whether the bytes at the current position spell `word` (`true`, `false`, `null`).
    func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard position + n <= count else { return false }
        for i in 0..<n where base[position + i] != word.utf8Start[i] { return false }
        return true
    }

    /// What kind of value comes next.
    mutating func nextIsNull() throws -> Bool { try peek() == UInt8(ascii: "n") }
    mutating func nextIsArray() throws -> Bool { try peek() == UInt8(ascii: "[") }
    mutating func nextIsObject() throws -> Bool { try peek() == UInt8(ascii: "{") }
    mutating func nextIsString() throws -> Bool { try peek() == UInt8(ascii: "\"") }

    /// The 1-based line of a byte offset, for error messages.
    func lineNumber(of offset: Int) -> Int {
        var line = 1
        var i = 0
        let limit = min(offset, count)
        while i < limit {
            if base[i] == 0x0A { line += 1 }
            i += 1
        }
        return line
    }
}
