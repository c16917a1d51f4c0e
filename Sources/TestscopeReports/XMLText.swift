/// Makes text legal XML 1.0: ANSI sequences stripped, forbidden characters replaced with U+FFFD,
/// markup characters escaped (and line breaks and tabs as character references in attributes).
public enum XMLText {
    /// Text content of an element.
    public static func content(_ text: String) -> String { escape(text, attribute: false) }

    /// An attribute value (without the quotes).
    public static func attribute(_ text: String) -> String { escape(text, attribute: true) }

    static func escape(_ raw: String, attribute: Bool) -> String {
        // Most text (file paths, function names) needs nothing: returned as it is after one byte scan.
        // Escaping scalar by scalar was 75 % of writing cobertura.xml on the 400-file package (perf).
        guard needsEscaping(raw) else { return raw }
        return escapeScalars(raw, attribute: attribute)
    }

    /// The escaping itself, scalar by scalar.
    static func escapeScalars(_ raw: String, attribute: Bool) -> String {
        let text = TerminalText.stripANSI(raw)
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "'" where attribute: out += "&apos;"
            case "\n" where attribute: out += "&#10;"
            case "\r" where attribute: out += "&#13;"
            case "\t" where attribute: out += "&#9;"
            case "\n", "\r", "\t": out.unicodeScalars.append(scalar)
            default:
                if isLegal(scalar) { out.unicodeScalars.append(scalar) } else { out += "\u{FFFD}" }
            }
        }
        return out
    }

    /// Whether any byte may change: markup, quotes, control characters (ESC among them), U+FFFE / U+FFFF.
    static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                switch bytes[i] {
                case 0..<0x20, 0x22, 0x26, 0x27, 0x3C, 0x3E:
                    return true
                case 0xEF where i + 2 < bytes.count && bytes[i + 1] == 0xBF && bytes[i + 2] >= 0xBE:
                    return true
                default:
                    i += 1
                }
            }
            return false
        }
    }

    static func isLegal(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x20 { return false }
        if v == 0xFFFE || v == 0xFFFF { return false }
        return true
    }
}

/// ANSI escape removal shared by the text-based reports.
public enum TerminalText {
    public static func stripANSI(_ text: String) -> String {
        guard text.utf8.contains(0x1B) else { return text }
        var out = String.UnicodeScalarView()
        var it = text.unicodeScalars.makeIterator()
        while let s = it.next() {
            guard s == "\u{1B}" else { out.append(s); continue }
            guard let kind = it.next() else { break }
            if kind == "[" {
                while let c = it.next() { if (0x40...0x7E).contains(c.value) { break } }
            } else if kind == "]" {
                while let c = it.next() {
                    if c == "\u{07}" { break }
                    if c == "\u{1B}" { _ = it.next(); break }
                }
            }
        }
        return String(out)
    }
}
