import TestscopeExecution

/// A place in a source file as llvm's coverage mapping gives it: 1-based line and 1-based UTF-8 byte column.
package struct SourcePosition: Comparable, Hashable, Sendable, Codable {
    package var line: UInt32
    package var column: UInt32

    package init(line: UInt32, column: UInt32) {
        self.line = line
        self.column = column
    }

    package static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
}

/// One token of a source file: comments and whitespace are not tokens, so a change to them alone
/// leaves a file's tokens as they were.
package struct SourceToken: Equatable, Sendable {
    /// Words (identifiers, keywords, `@attributes`, `#directives`) are what can change a declaration;
    /// literals, operators and punctuation alone cannot add, remove or rename one.
    package enum Kind: Equatable, Sendable { case word, number, string, punctuation }

    package var kind: Kind
    package var text: String
    package var start: SourcePosition
    /// One past the last byte (llvm's region ends are exclusive too).
    package var end: SourcePosition
}

/// Which comment rules apply: Swift's block comments nest, C's do not; `'x'` is a literal only in C.
package enum SourceLanguage: Sendable {
    case swift, cFamily

    /// The language of a file by its extension; nil for a file that is not source code.
    package static func of(path: String) -> SourceLanguage? {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if ext == "swift" { return .swift }
        if ["c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "m", "mm", "inc", "def"].contains(ext) { return .cFamily }
        return nil
    }

    /// Headers are included into other files: what they declare is not one function's body.
    package static func isHeader(path: String) -> Bool {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return ["h", "hpp", "hh", "hxx", "inc", "def"].contains(ext)
    }
}

/// The lexer: enough of Swift's and C's grammar to drop comments and whitespace and to keep every
/// literal whole (a `//` inside a string is not a comment), with each token's place.
package enum SourceTokens {
    package static func tokens(_ text: String, language: SourceLanguage) -> [SourceToken] {
        var lexer = Lexer(bytes: Array(text.utf8), language: language)
        return lexer.run()
    }

    /// A checksum of the tokens in `range` (start inclusive, end exclusive): equal for texts that differ
    /// only in comments and whitespace.
    package static func checksum(_ tokens: [SourceToken], from start: SourcePosition, to end: SourcePosition) -> UInt64 {
        // Tokens are in order: a binary search finds the first (a map of 70,000 functions reads each file's tokens once per function).
        var low = 0, high = tokens.count
        while low < high {
            let middle = (low + high) / 2
            if tokens[middle].start < start { low = middle + 1 } else { high = middle }
        }
        var text = ""
        for token in tokens[low...] {
            if token.end > end { break }
            text += token.text
            text += "\u{1}"
        }
        return StableHash.hash(seed: 0, text)
    }
}

private struct Lexer {
    let bytes: [UInt8]
    let language: SourceLanguage
    var index = 0
    var line: UInt32 = 1
    var lineStart = 0
    var tokens: [SourceToken] = []

    init(bytes: [UInt8], language: SourceLanguage) {
        self.bytes = bytes
        self.language = language
    }

    var position: SourcePosition { SourcePosition(line: line, column: UInt32(index - lineStart + 1)) }

    func byte(_ offset: Int = 0) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

    mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    static func isWordStart(_ b: UInt8) -> Bool { b == 95 || b == 36 || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b >= 0x80 }
    static func isWord(_ b: UInt8) -> Bool { isWordStart(b) || (b >= 48 && b <= 57) }
    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
    static let operatorBytes = Set("/=-+!*%<>&|^~?.".utf8)

    mutating func run() -> [SourceToken] {
        while let b = byte() {
            if b == 32 || b == 9 || b == 10 || b == 13 || b == 11 || b == 12 { advance(); continue }
            if b == UInt8(ascii: "/"), byte(1) == UInt8(ascii: "/") { skipLine(); continue }
            if b == UInt8(ascii: "/"), byte(1) == UInt8(ascii: "*") { skipBlockComment(); continue }
            let start = position, from = index
            let kind: SourceToken.Kind
            if b == UInt8(ascii: "\"") || (b == UInt8(ascii: "'") && language == .cFamily) {
                language == .swift ? scanSwiftString() : scanCString(quote: b)
                kind = .string
            } else if b == UInt8(ascii: "#"), language == .swift, rawStringAhead() {
                scanSwiftString()
                kind = .string
            } else if Self.isDigit(b) || (b == UInt8(ascii: ".") && language == .cFamily && byte(1).map(Self.isDigit) == true) {
                scanNumber()
                kind = .number
            } else if Self.isWordStart(b) || ((b == UInt8(ascii: "@") || b == UInt8(ascii: "#")) && byte(1).map(Self.isWordStart) == true) {
                advance()
                while let c = byte(), Self.isWord(c) { advance() }
                kind = .word
            } else if b == UInt8(ascii: "`"), language == .swift {
                advance()
                while let c = byte(), c != UInt8(ascii: "`"), c != 10 { advance() }
                if byte() == UInt8(ascii: "`") { advance() }
                kind = .word
            } else if Self.operatorBytes.contains(b) {
                // Maximal munch (`=-` is not `= -`), stopping where a comment starts.
                advance()
                while let c = byte(), Self.operatorBytes.contains(c),
                      !(c == UInt8(ascii: "/") && (byte(1) == UInt8(ascii: "/") || byte(1) == UInt8(ascii: "*"))) { advance() }
                kind = .punctuation
            } else {
                advance()
                kind = .punctuation
            }
            var text = String(decoding: bytes[from..<index], as: UTF8.self)
            // Swift reads a `(` or `[` that starts a line as a new statement, not a call or subscript of
            // the line before: that newline is not whitespace.
            if language == .swift, text == "(" || text == "[", let last = tokens.last, last.end.line < start.line { text = "\n" + text }
            tokens.append(SourceToken(kind: kind, text: text, start: start, end: position))
        }
        return tokens
    }

    mutating func skipLine() {
        while let c = byte(), c != 10 { advance() }
    }

    mutating func skipBlockComment() {
        var depth = 0
        while let c = byte() {
            if c == UInt8(ascii: "/"), byte(1) == UInt8(ascii: "*") {
                // C's comments do not nest: a `/*` inside one is text.
                if depth == 0 || language == .swift { depth += 1 }
                advance(); advance()
            } else if c == UInt8(ascii: "*"), byte(1) == UInt8(ascii: "/") {
                depth -= 1
                advance(); advance()
                if depth == 0 { return }
            } else {
                advance()
            }
        }
    }

    /// `#…#"`: a raw string's opening (a `#if` is not one).
    func rawStringAhead() -> Bool {
        var offset = 0
        while byte(offset) == UInt8(ascii: "#") { offset += 1 }
        return byte(offset) == UInt8(ascii: "\"")
    }

    mutating func scanCString(quote: UInt8) {
        advance()
        while let c = byte(), c != 10 {
            advance()
            if c == UInt8(ascii: "\\"), byte() != nil { advance(); continue }
            if c == quote { return }
        }
    }

    /// A Swift string at `"`, `"""` or `#…#"`: up to its matching close, interpolations (with the
    /// strings inside them) kept in the token.
    mutating func scanSwiftString() {
        var hashes = 0
        while byte() == UInt8(ascii: "#") { hashes += 1; advance() }
        let multiLine = byte() == UInt8(ascii: "\"") && byte(1) == UInt8(ascii: "\"") && byte(2) == UInt8(ascii: "\"")
        for _ in 0..<(multiLine ? 3 : 1) { advance() }
        while let c = byte() {
            if c == 10 && !multiLine { return }
            if c == UInt8(ascii: "\\"), escapeHashes(after: 1, count: hashes) {
                for _ in 0...hashes { advance() }
                if byte() == UInt8(ascii: "(") { scanInterpolation() } else if byte() != nil { advance() }
                continue
            }
            if c == UInt8(ascii: "\""), closes(multiLine: multiLine, hashes: hashes) {
                for _ in 0..<((multiLine ? 3 : 1) + hashes) { advance() }
                return
            }
            advance()
        }
    }

    func escapeHashes(after offset: Int, count: Int) -> Bool {
        (0..<count).allSatisfy { byte(offset + $0) == UInt8(ascii: "#") }
    }

    func closes(multiLine: Bool, hashes: Int) -> Bool {
        let quotes = multiLine ? 3 : 1
        guard (0..<quotes).allSatisfy({ byte($0) == UInt8(ascii: "\"") }) else { return false }
        return escapeHashes(after: quotes, count: hashes)
    }

    /// `\( … )`: balanced parentheses, nested strings scanned as strings.
    mutating func scanInterpolation() {
        var depth = 0
        while let c = byte() {
            if c == UInt8(ascii: "\"") || (c == UInt8(ascii: "#") && rawStringAhead()) { scanSwiftString(); continue }
            advance()
            if c == UInt8(ascii: "(") { depth += 1 }
            if c == UInt8(ascii: ")") { depth -= 1; if depth == 0 { return } }
        }
    }

    mutating func scanNumber() {
        // In hexadecimal, `e` is a digit and `p` the exponent.
        let hex = byte() == UInt8(ascii: "0") && (byte(1) == UInt8(ascii: "x") || byte(1) == UInt8(ascii: "X"))
        while let c = byte() {
            if Self.isWord(c) {
                let exponent = hex ? (c == UInt8(ascii: "p") || c == UInt8(ascii: "P")) : (c == UInt8(ascii: "e") || c == UInt8(ascii: "E"))
                advance()
                if exponent, let sign = byte(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), byte(1).map(Self.isDigit) == true { advance() }
            } else if c == UInt8(ascii: "."), byte(1).map(Self.isDigit) == true {
                advance()
            } else {
                return
            }
        }
    }
}
