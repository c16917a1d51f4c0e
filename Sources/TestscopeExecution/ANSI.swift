/// Removes ANSI escape sequences (CSI such as colours, OSC such as hyperlinks): the one stripper, for
/// the XCTest console parser and for the reports that must not carry terminal codes (XML, Markdown).
package enum ANSI {
    package static func strip(_ text: String) -> String {
        // Most text has no escape: returned as it is after one byte scan.
        guard text.utf8.contains(0x1B) else { return text }
        var out = String.UnicodeScalarView()
        var iterator = text.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "\u{1B}" else { out.append(scalar); continue }
            guard let kind = iterator.next() else { break }
            if kind == "[" {
                // CSI: parameters up to a final byte in 0x40–0x7E.
                while let s = iterator.next() { if (0x40...0x7E).contains(s.value) { break } }
            } else if kind == "]" {
                // OSC: up to BEL or ST (ESC \).
                while let s = iterator.next() {
                    if s == "\u{07}" { break }
                    if s == "\u{1B}" { _ = iterator.next(); break }
                }
            }
        }
        return String(out)
    }
}
