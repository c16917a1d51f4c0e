/// Caps the text that reaches XML and HTML: one 10 MB failure message or output line became one
/// 10 MB text node in `junit.xml`, which libxml2-based readers refuse ("huge text node", their limit
/// is 10,000,000 bytes), and a page no browser opens quickly. The full text stays in `tests.json`.
enum BoundedText {
    /// Per message, detail line, skip reason or crash reason.
    static let messageLimit = 64 * 1024
    /// Per test's output (and per failure body, all of a test's messages together).
    static let outputLimit = 1024 * 1024

    /// `text` itself, or its first `limit` bytes (cut at a character boundary) and a note saying how
    /// many bytes were cut and where the full text is.
    static func cap(_ text: String, limit: Int = messageLimit, fullTextIn: String = "tests.json") -> String {
        let count = text.utf8.count
        guard count > limit else { return text }
        var utf8 = Array(text.utf8.prefix(limit))
        // Back off to the start of a character, so that no half character is left.
        while let last = utf8.last, last & 0xC0 == 0x80 { utf8.removeLast() }
        if let last = utf8.last, last >= 0xC0 { utf8.removeLast() }
        return String(decoding: utf8, as: UTF8.self) + "\n… \(count - utf8.count) bytes cut, full text in \(fullTextIn)"
    }

    /// The lines, each at most `lineLimit` bytes, and together at most `limit` bytes (then a note line).
    static func lines(_ lines: [String], limit: Int = outputLimit, lineLimit: Int = outputLimit,
                      fullTextIn: String = "tests.json") -> [String] {
        var result: [String] = []
        var used = 0
        for (index, line) in lines.enumerated() {
            let size = line.utf8.count + 1
            if used + size > limit {
                let rest = lines[index...].reduce(0) { $0 + $1.utf8.count + 1 }
                let room = limit - used
                if room > 0 {
                    let kept = cap(line, limit: room, fullTextIn: fullTextIn)
                    let prefix = kept.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
                    result.append(prefix)
                    result.append("… \(rest - prefix.utf8.count - 1) bytes cut, full text in \(fullTextIn)")
                } else {
                    result.append("… \(rest) bytes cut, full text in \(fullTextIn)")
                }
                return result
            }
            result.append(size - 1 > lineLimit ? cap(line, limit: lineLimit, fullTextIn: fullTextIn) : line)
            used += size
        }
        return result
    }
}
