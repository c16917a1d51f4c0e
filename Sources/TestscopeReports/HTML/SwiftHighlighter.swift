/// Swift syntax highlighting done by Testscope itself: a byte-level lexer that finds keywords,
/// string literals (with interpolations, multi-line and raw strings), comments (nested), numbers,
/// attributes, `#` directives and type names in a whole source file.
package enum SwiftHighlighter {
    /// What a highlighted range is; the raw value is the CSS class used in the report.
    package enum Kind: String, Sendable {
        case keyword = "k", string = "s", comment = "c", number = "n", attribute = "a", directive = "d", type = "t"
    }

    /// A highlighted byte range of the file (it may span lines: block comments, multi-line strings).
    package struct Token: Equatable, Sendable {
        package var start: Int
        package var end: Int
        package var kind: Kind
    }

    /// The highlighted ranges of `bytes`, in order and not overlapping.
    package static func tokens(_ bytes: [UInt8]) -> [Token] {
        bytes.withUnsafeBufferPointer { buffer in
            var lexer = Lexer(bytes: buffer)
            lexer.code(insideInterpolation: false, depth: 0)
            return lexer.tokens
        }
    }

    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "as", "false", "is", "nil", "self", "super", "throws", "true",
        "try", "async", "await", "actor", "some", "any", "nonisolated", "isolated", "consume", "borrowing",
        "consuming", "macro", "package", "mutating", "nonmutating", "override", "final", "required",
        "convenience", "lazy", "weak", "unowned", "dynamic", "indirect", "optional", "infix", "prefix",
        "postfix", "sending", "Self", "Any", "Type", "Protocol",
    ]
    /// Keywords that stay keywords after a `.` (`x.self`, `.init(…)`, `T.Type`).
    static let memberKeywords: Set<String> = ["self", "init", "Type", "Protocol"]
}

private struct Lexer {
    /// The file's bytes: a buffer, not an array, so that a byte read costs no bounds check beyond
    /// the lexer's own (`i < bytes.count`).
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var tokens: [SwiftHighlighter.Token] = []
    /// The last byte of code that was not blank (for `.member` and number boundaries).
    var previous: UInt8 = 0x20

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        tokens.reserveCapacity(bytes.count / 12)
    }

    /// Deeper interpolations than this are shown as string text (a bound on recursion).
    static let maximumDepth = 32

    mutating func emit(_ start: Int, _ end: Int, _ kind: SwiftHighlighter.Kind) {
        guard end > start else { return }
        if let last = tokens.last, last.kind == kind, last.end == start {
            tokens[tokens.count - 1].end = end
        } else {
            tokens.append(.init(start: start, end: end, kind: kind))
        }
    }

    func at(_ index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }

    /// Lexes code until the end, or (inside an interpolation) until its closing `)`, left unconsumed.
    mutating func code(insideInterpolation: Bool, depth: Int) {
        var parens = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D:
                i += 1
                continue
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "/"):
                let start = i
                while i < bytes.count && bytes[i] != 0x0A { i += 1 }
                emit(start, i, .comment)
                continue
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "*"):
                blockComment()
                continue
            case UInt8(ascii: "("):
                parens += 1
            case UInt8(ascii: ")"):
                if insideInterpolation && parens == 0 { return }
                parens -= 1
            case UInt8(ascii: "\""):
                string(start: i, hashes: 0, depth: depth)
                previous = UInt8(ascii: "\"")
                continue
            case UInt8(ascii: "#"):
                var hashes = 0
                while at(i + hashes) == UInt8(ascii: "#") { hashes += 1 }
                if at(i + hashes) == UInt8(ascii: "\"") {
                    string(start: i, hashes: hashes, depth: depth)
                    previous = UInt8(ascii: "\"")
                    continue
                }
                if hashes == 1 && isIdentifierStart(at(i + 1)) {
                    let start = i
                    i += 1
                    skipIdentifier()
                    emit(start, i, .directive)
                    previous = UInt8(ascii: "a")
                    continue
                }
            case UInt8(ascii: "@") where isIdentifierStart(at(i + 1)):
                let start = i
                i += 1
                skipIdentifier()
                emit(start, i, .attribute)
                previous = UInt8(ascii: "a")
                continue
            case UInt8(ascii: "`"):
                // A quoted (raw) identifier: never a keyword, string or comment, whatever it contains.
                var j = i + 1
                while j < bytes.count && bytes[j] != UInt8(ascii: "`") && bytes[j] != 0x0A { j += 1 }
                i = j < bytes.count && bytes[j] == UInt8(ascii: "`") ? j + 1 : i + 1
                previous = UInt8(ascii: "a")
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9") where !isIdentifierByte(previousByte):
                number()
                previous = UInt8(ascii: "0")
                continue
            default:
                if isIdentifierStart(b) {
                    identifier()
                    continue
                }
            }
            previous = b
            i += 1
        }
    }

    /// The byte just before `i` (for telling `x1` from `1`).
    var previousByte: UInt8 { i > 0 ? bytes[i - 1] : 0x20 }

    mutating func identifier() {
        let start = i
        skipIdentifier()
        let length = i - start
        let afterDot = previous == UInt8(ascii: ".")
        previous = UInt8(ascii: "a")
        // Identifiers longer than the longest keyword, or starting with a non-ASCII byte, stay plain.
        guard length <= 16, bytes[start] < 0x80 else { return }
        let word = String(decoding: bytes[start..<i], as: UTF8.self)
        if SwiftHighlighter.keywords.contains(word), !afterDot || SwiftHighlighter.memberKeywords.contains(word) {
            emit(start, i, .keyword)
        } else if bytes[start] >= UInt8(ascii: "A") && bytes[start] <= UInt8(ascii: "Z") {
            emit(start, i, .type)
        }
    }

    mutating func skipIdentifier() {
        while i < bytes.count && isIdentifierByte(bytes[i]) { i += 1 }
    }

    mutating func number() {
        let start = i
        if bytes[i] == UInt8(ascii: "0"), [UInt8(ascii: "x"), UInt8(ascii: "b"), UInt8(ascii: "o")].contains(at(i + 1)) {
            i += 2
            while i < bytes.count && (isHexDigit(bytes[i]) || bytes[i] == UInt8(ascii: "_")) { i += 1 }
            if at(i) == UInt8(ascii: "."), isHexDigit(at(i + 1)) {
                i += 1
                while i < bytes.count && (isHexDigit(bytes[i]) || bytes[i] == UInt8(ascii: "_")) { i += 1 }
            }
            if at(i) == UInt8(ascii: "p") || at(i) == UInt8(ascii: "P") { exponent() }
        } else {
            digits()
            if at(i) == UInt8(ascii: "."), isDigit(at(i + 1)) {
                i += 1
                digits()
            }
            if at(i) == UInt8(ascii: "e") || at(i) == UInt8(ascii: "E") { exponent() }
        }
        emit(start, i, .number)
    }

    mutating func digits() {
        while i < bytes.count && (isDigit(bytes[i]) || bytes[i] == UInt8(ascii: "_")) { i += 1 }
    }

    mutating func exponent() {
        var j = i + 1
        if at(j) == UInt8(ascii: "+") || at(j) == UInt8(ascii: "-") { j += 1 }
        guard isDigit(at(j)) else { return }
        i = j
        digits()
    }

    mutating func blockComment() {
        let start = i
        var nesting = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "/") && at(i + 1) == UInt8(ascii: "*") {
                nesting += 1
                i += 2
            } else if bytes[i] == UInt8(ascii: "*") && at(i + 1) == UInt8(ascii: "/") {
                nesting -= 1
                i += 2
                if nesting == 0 { break }
            } else {
                i += 1
            }
        }
        emit(start, i, .comment)
    }

    /// A string literal starting at `start` (at its `#`s or its quote); `i` ends after it.
    mutating func string(start: Int, hashes: Int, depth: Int) {
        i = start + hashes
        let multiline = at(i) == UInt8(ascii: "\"") && at(i + 1) == UInt8(ascii: "\"") && at(i + 2) == UInt8(ascii: "\"")
        i += multiline ? 3 : 1
        var pieceStart = start
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A && !multiline { break }
            if b == UInt8(ascii: "\\") && hashesFollow(i + 1, hashes) {
                let afterHashes = i + 1 + hashes
                if at(afterHashes) == UInt8(ascii: "(") && depth < Lexer.maximumDepth {
                    emit(pieceStart, afterHashes + 1, .string)
                    i = afterHashes + 1
                    previous = UInt8(ascii: "(")
                    code(insideInterpolation: true, depth: depth + 1)
                    pieceStart = i
                    if i < bytes.count { i += 1 }
                    continue
                }
                i = afterHashes + 1
                continue
            }
            if b == UInt8(ascii: "\"") {
                let quotes = multiline ? 3 : 1
                if (0..<quotes).allSatisfy({ at(i + $0) == UInt8(ascii: "\"") }) && hashesFollow(i + quotes, hashes) {
                    i += quotes + hashes
                    emit(pieceStart, i, .string)
                    return
                }
            }
            i += 1
        }
        emit(pieceStart, i, .string)
    }

    func hashesFollow(_ index: Int, _ count: Int) -> Bool {
        for k in 0..<count where at(index + k) != UInt8(ascii: "#") { return false }
        return true
    }

    /// A byte's class, one digit per byte value: 1 may start an identifier (letters, `_`, `$`, any
    /// byte of a non-ASCII character), 2 a decimal digit, 0 neither. One load instead of five
    /// comparisons per byte of every identifier.
    @inline(__always)
    static var classes: StaticString {
        """
        0000000000000000000000000000000000001000000000002222222222000000\
        0111111111111111111111111110000101111111111111111111111111100000\
        1111111111111111111111111111111111111111111111111111111111111111\
        1111111111111111111111111111111111111111111111111111111111111111
        """
    }

    @inline(__always)
    func isIdentifierStart(_ b: UInt8) -> Bool { Self.classes.utf8Start[Int(b)] == UInt8(ascii: "1") }

    @inline(__always)
    func isIdentifierByte(_ b: UInt8) -> Bool { Self.classes.utf8Start[Int(b)] != UInt8(ascii: "0") }
    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
    func isHexDigit(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"))
    }
}
