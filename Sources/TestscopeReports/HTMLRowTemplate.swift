import Foundation
import Mustache

/// The values of one row (a source line, a function) for a row template. Rows are also
/// `MustacheParent`s, so any template can render them through the Mustache library.
protocol HTMLRow: MustacheParent {
    /// The text of a variable (nil: not defined, rendered empty).
    func value(_ name: String) -> String?
    /// Appends a variable's value, HTML-escaped or not; rows override it to append bytes directly.
    func append(_ name: String, escaped: Bool, to out: inout [UInt8])
}

extension HTMLRow {
    func child(named name: String) -> Any? { value(name) }

    func append(_ name: String, escaped: Bool, to out: inout [UInt8]) {
        guard let text = value(name) else { return }
        if escaped { HTMLEscaping.appendEscaped(text.utf8, to: &out) } else { out.append(contentsOf: text.utf8) }
    }
}

/// A template applied once per row (hundreds of thousands of source lines in a large report).
/// The Mustache library is far too slow for that (about 13 µs a row), so a row template made only
/// of text and plain variable tags (`{{name}}`, `{{{name}}}`, `{{& name}}`) is compiled into text
/// and variable segments and filled in directly — with the Mustache library's own semantics
/// (HTML-escaping `{{name}}`, empty for an undefined name; a test compares the two). Any other
/// tag (sections, partials, comments, delimiters) makes the row render through the library.
struct HTMLRowTemplate: Sendable {
    enum Segment: Sendable, Equatable {
        case text([UInt8])
        case variable(String, escaped: Bool)
    }

    let name: String
    /// The compiled fast path, nil when the template needs the Mustache library.
    let segments: [Segment]?
    let library: MustacheLibrary

    init(name: String, text: String, library: MustacheLibrary) {
        self.name = name
        self.segments = Self.compile(text)
        self.library = library
    }

    func render<Row: HTMLRow>(_ row: Row, to out: inout [UInt8]) {
        guard let segments else {
            out.append(contentsOf: (library.render(row, withTemplate: name) ?? "").utf8)
            return
        }
        for segment in segments {
            switch segment {
            case .text(let bytes): out.append(contentsOf: bytes)
            case .variable(let variable, let escaped): row.append(variable, escaped: escaped, to: &out)
            }
        }
    }

    /// Text and plain variable tags only, else nil.
    static func compile(_ text: String) -> [Segment]? {
        var segments: [Segment] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { segments.append(.text(Array(rest[..<open.lowerBound].utf8))) }
            var tag = rest[open.upperBound...]
            var escaped = true
            let closing: String
            if tag.first == "{" {
                tag = tag.dropFirst()
                escaped = false
                closing = "}}}"
            } else {
                if tag.first == "&" {
                    tag = tag.dropFirst()
                    escaped = false
                }
                closing = "}}"
            }
            guard let close = tag.range(of: closing) else { return nil }
            let variable = tag[..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            let plain = !variable.isEmpty && variable.unicodeScalars.allSatisfy {
                ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                    || ($0.value >= 0x61 && $0.value <= 0x7A) || $0 == "_" || $0 == "-"
            }
            guard plain else { return nil }
            segments.append(.variable(variable, escaped: escaped))
            rest = tag[close.upperBound...]
        }
        if !rest.isEmpty { segments.append(.text(Array(rest.utf8))) }
        return segments
    }
}
