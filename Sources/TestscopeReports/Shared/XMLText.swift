import TestscopeExecution

/// Makes text legal XML 1.0: ANSI sequences stripped, forbidden characters replaced with U+FFFD,
/// markup characters escaped (and line breaks and tabs as character references in attributes).
package enum XMLText {
    /// Text content of an element.
    package static func content(_ text: String) -> String { escape(text, attribute: false) }

    /// An attribute value (without the quotes).
    package static func attribute(_ text: String) -> String { escape(text, attribute: true) }

    static func escape(_ raw: String, attribute: Bool) -> String {
        // Most text (file paths, function names) needs nothing: returned as it is after one byte scan.
        // Escaping scalar by scalar was 75 % of writing cobertura.xml on the 400-file package (perf);
        // the rest (names with `<`, `->`) is escaped byte by byte.
        guard needsEscaping(raw) else { return raw }
        return escapeBytes(raw, attribute: attribute)
    }

    /// The escaping itself, on the UTF-8 bytes (a Swift string is valid UTF-8, so a byte below 0x80
    /// is a whole character; U+FFFE and U+FFFF are the only other illegal ones).
    static func escapeBytes(_ raw: String, attribute: Bool) -> String {
        var text = ANSI.strip(raw)
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + bytes.count / 8 + 16)
            func add(_ s: StaticString) { s.withUTF8Buffer { out.append(contentsOf: $0) } }
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                switch b {
                case 0x26: add("&amp;")
                case 0x3C: add("&lt;")
                case 0x3E: add("&gt;")
                case 0x22 where attribute: add("&quot;")
                case 0x27 where attribute: add("&apos;")
                case 0x0A where attribute: add("&#10;")
                case 0x0D where attribute: add("&#13;")
                case 0x09 where attribute: add("&#9;")
                case 0x0A, 0x0D, 0x09: out.append(b)
                case 0..<0x20: add("\u{FFFD}")
                case 0xEF where i + 1 < bytes.count && bytes[i] == 0xBF && bytes[i + 1] >= 0xBE:
                    add("\u{FFFD}")
                    i += 2
                default: out.append(b)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
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
}
