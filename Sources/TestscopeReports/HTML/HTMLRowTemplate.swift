import Foundation
import TestscopeExecution
import Mustache

/// The values of one row (a source line, a function) for a row template. Rows are also
/// `MustacheParent`s, so that a row template the fast path does not take renders through
/// `CompiledTemplates`, which looks the fields up as it looks up the pages' models.
protocol HTMLRow: MustacheParent {
    /// The variables a row defines, by their names in the templates.
    associatedtype Field: RawRepresentable<String>
    /// The text of a variable (nil: not defined, rendered empty).
    func value(_ field: Field) -> String?
    /// Appends a variable's value, HTML-escaped or not; rows override it to append bytes directly.
    func append(_ field: Field, escaped: Bool, to out: inout ByteWriter)
}

extension HTMLRow {
    func child(named name: String) -> Any? { Field(rawValue: name).flatMap(value) }

    func append(_ field: Field, escaped: Bool, to out: inout ByteWriter) {
        guard let text = value(field) else { return }
        if escaped { HTMLEscaping.appendEscaped(text.utf8, to: &out) } else { out.append(string: text) }
    }
}

/// A template applied once per row (hundreds of thousands of source lines in a large report).
/// A row template made only of text and plain variable tags (`{{name}}`, `{{{name}}}`, `{{& name}}`)
/// is compiled into text and variable segments and filled in directly — with the Mustache semantics
/// (HTML-escaping `{{name}}`, empty for an undefined name; a test compares the two): a
/// `CompiledTemplate` rendered per row took 2.1 s instead of 1.32 s on swift-collections. Any other
/// tag (sections, partials, dotted names) makes the row render through `CompiledTemplates`.
struct HTMLRowTemplate: Sendable {
    enum Segment: Sendable, Equatable {
        case text([UInt8])
        case variable(String, escaped: Bool)
    }

    let name: String
    /// The compiled fast path, nil when the template renders through `templates`.
    let segments: [Segment]?
    let templates: CompiledTemplates
    /// `compiled(for:)`'s results by row type, made once per report: made per page, the function
    /// rows' alone were 36,000 instructions a page (14.5 M of the HTML report at 400 files).
    private let compiledByRow = Locked<[ObjectIdentifier: Any]>([:])

    /// The row template `name` of `templates`, whose text is `text`.
    init(name: String, text: String, templates: CompiledTemplates) {
        self.name = name
        self.segments = Self.compile(text)
        self.templates = templates
    }

    /// Renders one row (a page renders many: compile once with `compiled(for:)`).
    func render<Row: HTMLRow>(_ row: Row, to out: inout ByteWriter) {
        compiled(for: Row.self).render(row, to: &out)
    }

    /// The template with its variables resolved to `Row`'s fields, once per page rather than by name
    /// per row (string matches per variable and row were 2 % of the HTML report's CPU samples, and the
    /// rows' `value(_:)` switches 3 %, on the 400-file package).
    func compiled<Row: HTMLRow>(for _: Row.Type) -> CompiledRowTemplate<Row> {
        compiledByRow.withLock { cache in
            if let known = cache[ObjectIdentifier(Row.self)] as? CompiledRowTemplate<Row> { return known }
            let made = compile(for: Row.self)
            cache[ObjectIdentifier(Row.self)] = made
            return made
        }
    }

    private func compile<Row: HTMLRow>(for _: Row.Type) -> CompiledRowTemplate<Row> {
        CompiledRowTemplate(name: name, templates: templates, segments: segments?.compactMap { segment in
            switch segment {
            case .text(let bytes): return .text(bytes)
            // A name the row does not define renders empty, as in the Mustache library.
            case .variable(let name, let escaped): return Row.Field(rawValue: name).map { .field($0, escaped: escaped) }
            }
        })
    }

    /// Text and plain variable tags only (comments dropped), else nil: parsed by the page templates'
    /// parser (`CompiledTemplate`), so a row reads its tags exactly as the library does.
    static func compile(_ text: String) -> [Segment]? {
        guard let template = CompiledTemplate(text), template.partials.isEmpty else { return nil }
        var segments: [Segment] = []
        for node in template.nodes {
            switch node {
            case .text(let bytes):
                segments.append(.text(bytes))
            case .variable(.path(let names, topOnly: false), let escaped) where names.count == 1:
                segments.append(.variable(names[0], escaped: escaped))
            default:
                return nil
            }
        }
        return segments
    }
}

/// A row template whose variables are `Row`'s fields (see `HTMLRowTemplate.compiled(for:)`).
struct CompiledRowTemplate<Row: HTMLRow> {
    enum Segment {
        case text([UInt8])
        case field(Row.Field, escaped: Bool)
    }

    /// One piece of the row: the text `bytes[textStart..<textEnd]`, then the field if there is one.
    private struct Piece {
        var textStart: Int
        var textEnd: Int
        var field: Row.Field?
        var escaped: Bool
    }

    /// The template's name and the templates, for a template the fast path does not take.
    let name: String
    let templates: CompiledTemplates
    /// The text of all pieces, one buffer: enum segments each holding an array cost a retain and a
    /// release per segment and row (4 % of the HTML report's CPU samples at 800 files).
    private let bytes: [UInt8]
    /// nil when the template renders through `templates`.
    private let pieces: [Piece]?

    init(name: String, templates: CompiledTemplates, segments: [Segment]?) {
        self.name = name
        self.templates = templates
        var bytes: [UInt8] = []
        var pieces: [Piece] = []
        for segment in segments ?? [] {
            switch segment {
            case .text(let text):
                if let last = pieces.last, last.field == nil {
                    bytes.append(contentsOf: text)
                    pieces[pieces.count - 1].textEnd = bytes.count
                } else {
                    pieces.append(Piece(textStart: bytes.count, textEnd: bytes.count + text.count, field: nil, escaped: false))
                    bytes.append(contentsOf: text)
                }
            case .field(let field, let escaped):
                if let last = pieces.last, last.field == nil {
                    pieces[pieces.count - 1].field = field
                    pieces[pieces.count - 1].escaped = escaped
                } else {
                    pieces.append(Piece(textStart: bytes.count, textEnd: bytes.count, field: field, escaped: escaped))
                }
            }
        }
        self.bytes = bytes
        self.pieces = segments == nil ? nil : pieces
    }

    func render(_ row: Row, to out: inout ByteWriter) {
        guard let pieces else {
            if let bytes = templates.renderBytes(name, row) { bytes.withUnsafeBufferPointer { out.append($0) } }
            return
        }
        bytes.withUnsafeBufferPointer { text in
            for piece in pieces {
                if piece.textStart < piece.textEnd { out.append(UnsafeBufferPointer(rebasing: text[piece.textStart..<piece.textEnd])) }
                if let field = piece.field { row.append(field, escaped: piece.escaped, to: &out) }
            }
        }
    }
}
