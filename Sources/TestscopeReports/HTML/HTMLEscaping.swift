import Foundation

/// Escaping for everything that reaches the HTML report from the package or the run (paths, source
/// text, function names, messages): the same five characters the Mustache library escapes in `{{x}}`.
package enum HTMLEscaping {
    /// `<`, `>`, `&`, `"` and `'` as character references; everything else unchanged.
    package static func escape(_ text: String) -> String {
        var needs = false
        for byte in text.utf8 where entity(byte) != nil {
            needs = true
            break
        }
        guard needs else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        appendEscaped(text.utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends UTF-8 bytes escaped. The bytes must be valid UTF-8 (the escaped characters are ASCII,
    /// so escaping never splits a multi-byte character).
    @inline(__always)
    package static func appendEscaped<Bytes: Sequence>(_ bytes: Bytes, to out: inout [UInt8]) where Bytes.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ appendEscaped(buffer: $0, to: &out) }) != nil { return }
        Array(bytes).withUnsafeBufferPointer { appendEscaped(buffer: $0, to: &out) }
    }

    static func appendEscaped(buffer: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        escapeRuns(buffer, run: { out.append(contentsOf: $0) }, entity: { $0.withUTF8Buffer { out.append(contentsOf: $0) } })
    }

    /// The same into a `ByteWriter` (the file pages' rows).
    @inline(__always)
    static func appendEscaped<Bytes: Sequence>(_ bytes: Bytes, to out: inout ByteWriter) where Bytes.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ appendEscaped(buffer: $0, to: &out) }) != nil { return }
        Array(bytes).withUnsafeBufferPointer { appendEscaped(buffer: $0, to: &out) }
    }

    static func appendEscaped(buffer: UnsafeBufferPointer<UInt8>, to out: inout ByteWriter) {
        escapeRuns(buffer, run: { out.append($0) }, entity: { out.append($0) })
    }

    /// The one escaping loop: the runs between characters to escape are handed on whole (a byte at a
    /// time, source text was a tenth of the HTML report's CPU samples on the 800-file package), each
    /// escaped character as its entity.
    @inline(__always)
    private static func escapeRuns(_ buffer: UnsafeBufferPointer<UInt8>, run: (UnsafeBufferPointer<UInt8>) -> Void,
                                   entity: (StaticString) -> Void) {
        var runStart = 0
        for index in 0..<buffer.count {
            let byte = buffer[index]
            // Every byte to escape is below `?` (0x3F): one test of a bit mask for most bytes.
            guard byte < 0x3F, Self.escapedMask >> UInt64(byte) & 1 != 0, let replacement = Self.entity(byte) else { continue }
            if runStart < index { run(UnsafeBufferPointer(rebasing: buffer[runStart..<index])) }
            entity(replacement)
            runStart = index + 1
        }
        if runStart < buffer.count { run(UnsafeBufferPointer(rebasing: buffer[runStart...])) }
    }

    /// Bit b set: byte b (below 64) is escaped (`"`, `&`, `'`, `<`, `>`).
    @inline(__always)
    static var escapedMask: UInt64 { 1 << 0x22 | 1 << 0x26 | 1 << 0x27 | 1 << 0x3C | 1 << 0x3E }

    /// The entity of a byte to escape, as a string literal (no lazy global, no retain), or nil.
    @inline(__always)
    static func entity(_ byte: UInt8) -> StaticString? {
        switch byte {
        case UInt8(ascii: "<"): return "&lt;"
        case UInt8(ascii: ">"): return "&gt;"
        case UInt8(ascii: "&"): return "&amp;"
        case UInt8(ascii: "\""): return "&quot;"
        case UInt8(ascii: "'"): return "&#39;"
        default: return nil
        }
    }

    /// Text for inside an inline `<script>`/`<style>` element: `</` cannot end the element early.
    package static func inlineElementText(_ text: String) -> String {
        text.replacingOccurrences(of: "</", with: "<\\/")
    }
}

/// Number formatting of the HTML report.
package enum HTMLFormat {
    /// An execution count in at most 4 characters plus a suffix, like llvm-cov's `show`: `987`,
    /// `1.50k`, `12.3k`, `456M`. Digits are cut, never rounded up, so a count is never overstated.
    package static func abbreviatedCount(_ count: UInt64) -> String {
        if count < 1000 { return String(count) }
        let suffixes = ["k", "M", "G", "T", "P", "E"]
        var unit: UInt64 = 1000
        var index = 0
        while index + 1 < suffixes.count, count / unit >= 1000 {
            unit *= 1000
            index += 1
        }
        let whole = count / unit
        let rest = count % unit
        let decimals = whole < 10 ? 2 : whole < 100 ? 1 : 0
        guard decimals > 0 else { return "\(whole)\(suffixes[index])" }
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let fraction = String(rest / (unit / scale))
        return "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction + suffixes[index]
    }
}
