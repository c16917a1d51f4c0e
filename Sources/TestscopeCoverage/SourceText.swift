import Foundation
import TestscopeExecution

/// A source file's lines as bytes (it need not be valid UTF-8), for markers, partial-line trimming
/// and reports that show code.
package struct SourceText: Equatable, Sendable {
    /// Byte ranges of each line, without the line break.
    package let lineRanges: [Range<Int>]
    package let bytes: [UInt8]
    /// False when the file is not valid UTF-8 (it is then shown with replacement characters).
    package let isValidUTF8: Bool

    package init(bytes: [UInt8]) {
        self.bytes = bytes
        // memchr per line and an ASCII check a word at a time: the byte-by-byte loop and a
        // validating `String` copy of every file were 3 % of a text report's CPU at 800 files.
        var ranges: [Range<Int>] = []
        var ascii = true
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            let count = buffer.count
            var start = 0
            while start < count, let hit = memchr(base + start, 0x0A, count - start) {
                let newline = base.distance(to: UnsafeRawPointer(hit))
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                ranges.append(start..<end)
                start = newline + 1
            }
            if start < count { ranges.append(start..<count) }
            var i = 0
            while i + 8 <= count {
                if base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { ascii = false; break }
                i += 8
            }
            while ascii && i < count {
                if buffer[i] >= 0x80 { ascii = false }
                i += 1
            }
        }
        lineRanges = ranges
        isValidUTF8 = ascii || String(validating: bytes, as: UTF8.self) != nil
    }

    /// The file at `url`, or nil when it cannot be read. Read straight into its array (through
    /// `Data`, every source was copied once more: 9.5 MB at 400 files).
    package static func read(_ url: URL) -> SourceText? {
        guard let bytes = try? InputFile.read(url) else { return nil }
        return SourceText(bytes: bytes)
    }

    package var lineCount: Int { lineRanges.count }

    /// The text of a 1-based line (invalid UTF-8 replaced).
    package func line(_ number: Int) -> String {
        guard number >= 1 && number <= lineRanges.count else { return "" }
        return String(decoding: bytes[lineRanges[number - 1]], as: UTF8.self)
    }

    /// True if the 1-based columns `from..<to` (to the end of line when nil) hold code: anything but
    /// blanks and closing punctuation (a lone `}` that ends an unexecuted block is not a partial line).
    package func hasCode(line: UInt32, from: UInt32, to: UInt32?) -> Bool {
        withBuffers { $0.hasCode(line: line, from: from, to: to) }
    }

    /// The bytes and line ranges as buffers (valid inside `body`), for loops over many lines.
    func withBuffers<R>(_ body: (Buffers) -> R) -> R {
        bytes.withUnsafeBufferPointer { bytes in lineRanges.withUnsafeBufferPointer { body(Buffers(bytes: bytes, lineRanges: $0)) } }
    }

    /// A `SourceText`'s storage, borrowed.
    struct Buffers {
        let bytes: UnsafeBufferPointer<UInt8>
        let lineRanges: UnsafeBufferPointer<Range<Int>>

        /// `SourceText.hasCode`.
        func hasCode(line: UInt32, from: UInt32, to: UInt32?) -> Bool {
            let index = Int(line) - 1
            guard index >= 0 && index < lineRanges.count else { return true }
            let range = lineRanges[index]
            let lower = range.lowerBound + max(Int(from), 1) - 1
            let upper = min(range.upperBound, to.map { range.lowerBound + Int($0) - 1 } ?? range.upperBound)
            // The buffer is not bounds-checked: the range stays inside the line, and the line inside the bytes.
            guard lower < upper, upper <= bytes.count else { return false }
            for i in lower..<upper {
                switch bytes[i] {
                case 0x20, 0x09, UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: ";"), UInt8(ascii: ","): continue
                default: return true
                }
            }
            return false
        }
    }
}

/// `// testscope:ignore` (one line) and `// testscope:ignore:start` … `// testscope:ignore:end`
/// (a block, both marker lines included) exclude lines from every total.
package enum ExclusionMarkers {
    package static let line = "testscope:ignore"
    package static let blockStart = "testscope:ignore:start"
    package static let blockEnd = "testscope:ignore:end"

    /// The excluded 1-based lines, and whether a block was left open.
    package static func excludedLines(in source: SourceText) -> (lines: Set<UInt32>, unclosedBlockAt: Int?) {
        var excluded = Set<UInt32>()
        var blockStartLine: Int? = nil
        let marker = Array(line.utf8)
        // Most files have no marker: one memmem over the file instead of a scan of every line
        // (2 % of a 400-file report's time went to the line-by-line scan).
        guard contains(source.bytes, marker) else { return (excluded, nil) }
        for (i, range) in source.lineRanges.enumerated() {
            let number = i + 1
            guard let kind = markerKind(source.bytes[range], marker: marker) else {
                if blockStartLine != nil { excluded.insert(UInt32(number)) }
                continue
            }
            switch kind {
            case .start:
                if blockStartLine == nil { blockStartLine = number }
                excluded.insert(UInt32(number))
            case .end:
                if blockStartLine != nil { excluded.insert(UInt32(number)) }
                blockStartLine = nil
            case .line:
                excluded.insert(UInt32(number))
            }
        }
        return (excluded, blockStartLine)
    }

    enum Kind { case line, start, end }

    /// memchr for the needle's rarest byte in Swift source (its `:`), then a compare (glibc's memmem
    /// is not visible to Swift here). Searching for its first byte, `t`, stopped at most words of
    /// every file: 2 % of a text report's CPU at 800 files.
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                guard let base = h.baseAddress, let needle = n.baseAddress, n.count > 0, n.count <= h.count else { return false }
                let pivot = n.firstIndex(of: UInt8(ascii: ":")) ?? 0
                var offset = pivot
                let last = h.count - n.count + pivot
                while offset <= last {
                    guard let hit = memchr(base + offset, Int32(n[pivot]), last - offset + 1) else { return false }
                    let at = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + at - pivot, needle, n.count) == 0 { return true }
                    offset = at + 1
                }
                return false
            }
        }
    }

    /// Finds a marker inside a `//` or `/*` comment on the line.
    static func markerKind(_ text: ArraySlice<UInt8>, marker: [UInt8]) -> Kind? {
        guard text.count >= marker.count else { return nil }
        let start = text.startIndex
        var i = start
        var commentSeen = false
        while i + marker.count <= text.endIndex {
            if !commentSeen, i + 1 < text.endIndex, text[i] == 0x2F, text[i + 1] == 0x2F || text[i + 1] == 0x2A {
                commentSeen = true
            }
            if commentSeen, text[i] == marker[0], text[i..<(i + marker.count)].elementsEqual(marker) {
                let rest = text[(i + marker.count)...]
                if rest.starts(with: Array(":start".utf8)) { return .start }
                if rest.starts(with: Array(":end".utf8)) { return .end }
                if let next = rest.first, next == 0x3A || isIdentifierByte(next) { return nil }
                return .line
            }
            i += 1
        }
        return nil
    }

    static func isIdentifierByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D
    }
}
