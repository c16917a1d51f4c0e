import Foundation
import Mustache
import TestscopeExecution

/// A template compiled once and rendered without the Mustache library, with its semantics: the same
/// parse (standalone lines, partial indentation), the same lookups up the context stack (a
/// `MustacheParent`'s `child(named:)`, else a stored property), the same sections over sequences,
/// booleans and values. The library costs about 0.3 ms a file page (string concatenation per token, a
/// name split and protocol casts per lookup, escaping a `Character` at a time) and 13 µs a source row.
///
/// Text, variables (`{{x}}`, `{{{x}}}`, `{{& x}}`, dotted and `.`), sections, inverted sections, plain
/// partials and comments are compiled; a template with anything else (transforms, set delimiters,
/// inheritance, dynamic partials, pragmas) does not compile and is refused when the templates load
/// (`ReportError.templateUnsupported`). `CompiledTemplateTests` compares it with the library on written
/// templates. One difference is deliberate: `{{x}}` escapes every `<`, `>`,
/// `&`, `"` and `'` byte, also one that a combining mark (or a prepended character) joins into another
/// `Character`, which the library leaves as it is. The view models give strings, numbers, booleans,
/// models and arrays of them; a `MustacheCustomRenderable` prints its `renderText` as in the library,
/// while a lambda or a template as a value (the library calls or renders it) would print as text.
struct CompiledTemplate: Sendable {
    indirect enum Node: Sendable {
        case text([UInt8])
        case variable(Name, escaped: Bool)
        case section(Name, inverted: Bool, body: [Node])
        case partial(String, indentation: [UInt8]?)
    }

    /// A tag's name: `.`, or dotted components looked up the stack (or only on its top with a leading `.`).
    enum Name: Sendable {
        case current
        case path([String], topOnly: Bool)

        init(_ text: String) {
            if text == "." { self = .current; return }
            self = .path(text.split(separator: ".").map(String.init), topOnly: text.first == ".")
        }
    }

    let nodes: [Node]
    /// The partials it names (all must be compiled for it to render here).
    let partials: Set<String>

    /// nil when the template uses a tag outside the compiled subset.
    init?(_ text: String) {
        var parser = TemplateParser(text)
        guard let nodes = parser.parse(section: nil, newLine: true) else { return nil }
        self.nodes = nodes
        partials = parser.partials
    }
}

/// The library's parser (`MustacheTemplate.parse`), step for step, for the compiled subset.
///
/// It reads `Character`s, as the library does, but compares them by a code: the character's one
/// ASCII byte, `crlf` for `"\r\n"`, `other` for anything else (a non-ASCII character, or an ASCII
/// one joined with a combining mark), which is a `Character` comparison with an ASCII literal.
/// Comparing `Character`s and building `String`s a `Character` at a time cost 1,700 instructions
/// a character: 61 M for the built-in templates, parsed on one core before any page is written.
private struct TemplateParser {
    let chars: [Character]
    let codes: [UInt8]
    /// The template's UTF-8 and where each character starts in it (and where the last ends).
    let utf8: [UInt8]
    let offsets: [Int]
    var position = 0
    var partials: Set<String> = []

    static let crlf: UInt8 = 0xFE
    static let other: UInt8 = 0xFF

    init(_ text: String) {
        chars = Array(text)
        var codes: [UInt8] = []
        var offsets: [Int] = [0]
        var utf8: [UInt8] = []
        codes.reserveCapacity(chars.count)
        offsets.reserveCapacity(chars.count + 1)
        utf8.reserveCapacity(text.utf8.count)
        for c in chars {
            let bytes = c.utf8
            if bytes.count == 1, let byte = bytes.first, byte < 0x80 {
                codes.append(byte)
            } else {
                codes.append(c == "\r\n" ? Self.crlf : Self.other)
            }
            utf8.append(contentsOf: bytes)
            offsets.append(utf8.count)
        }
        self.codes = codes
        self.offsets = offsets
        self.utf8 = utf8
    }

    var atEnd: Bool { position == chars.count }
    var current: Character { atEnd ? "\0" : chars[position] }
    /// The current character's code (0, `"\0"`'s, at the end).
    var code: UInt8 { atEnd ? 0 : codes[position] }

    /// The library's name characters, and for partials also `()/`.
    static let nameCharacters = Set<Character>("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*")
    static let partialNameCharacters = Set<Character>("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*/")
    /// The same as tables of ASCII codes.
    static let nameCodes = asciiTable(nameCharacters)
    static let partialNameCodes = asciiTable(partialNameCharacters)

    static func asciiTable(_ characters: Set<Character>) -> [Bool] {
        var table = [Bool](repeating: false, count: 128)
        for c in characters { table[Int(c.asciiValue!)] = true }
        return table
    }

    /// Whether character `i` is in `set` (all ASCII): by its code, and for an `other` character by
    /// `Character` equality, under which U+212A KELVIN SIGN is `K` (canonically equivalent).
    static func isIn(_ set: Set<Character>, _ table: [Bool], _ codes: [UInt8], _ chars: [Character], _ i: Int) -> Bool {
        let code = codes[i]
        if code < 0x80 { return table[Int(code)] }
        return code == other && set.contains(chars[i])
    }

    /// `Character.isWhitespace` of character `i`.
    static func isWhitespace(_ codes: [UInt8], _ chars: [Character], _ i: Int) -> Bool {
        switch codes[i] {
        case 0x09...0x0D, 0x20, crlf: return true
        case other: return chars[i].isWhitespace
        default: return false
        }
    }

    /// `Character.isNewline` of character `i`.
    func isNewline(_ i: Int) -> Bool {
        switch codes[i] {
        case 0x0A...0x0D, Self.crlf: return true
        case Self.other: return chars[i].isNewline
        default: return false
        }
    }

    var atNewline: Bool { !atEnd && isNewline(position) }

    /// Past the whitespace characters from here.
    mutating func skipWhitespace() {
        let codes = self.codes, chars = self.chars
        _ = read { Self.isWhitespace(codes, chars, $0) }
    }

    /// The characters from here while `accept` holds for their index, as text.
    mutating func read(while accept: (Int) -> Bool) -> String {
        let start = position
        while !atEnd, accept(position) { position += 1 }
        return String(decoding: utf8[offsets[start]..<offsets[position]], as: UTF8.self)
    }

    /// Past `text` (ASCII) when it comes next.
    mutating func read(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= chars.count else { return false }
        for i in 0..<count where codes[position + i] != text.utf8Start[i] { return false }
        position += count
        return true
    }

    /// Text up to a newline (not consumed) or up to and past `{{`; nil where the library would throw.
    mutating func readUntilTagOrNewline() -> String? {
        var text = ""
        let codes = self.codes
        while !atEnd {
            text += read { codes[$0] != 0x0A && codes[$0] != Self.crlf && codes[$0] != UInt8(ascii: "{") }
            if atNewline { break }
            if code == UInt8(ascii: "{") {
                guard position + 2 <= chars.count else { return nil }
                if read("{{") { break }
                text.append("{")
                position += 1
            }
        }
        return text
    }

    /// A tag name without transforms, and the closing `}}`.
    mutating func name() -> String? {
        let codes = self.codes, chars = self.chars
        skipWhitespace()
        let text = read { Self.isIn(Self.nameCharacters, Self.nameCodes, codes, chars, $0) || codes[$0] == UInt8(ascii: "(") || codes[$0] == UInt8(ascii: ")") }
        skipWhitespace()
        guard read("}}"), !text.contains("(") && !text.contains(")") else { return nil }
        return text
    }

    /// At the end of the input, or only spaces and tabs before a newline (then consumed through it).
    mutating func lineFinished() -> Bool {
        if atEnd { return true }
        var probe = position
        while probe < chars.count, codes[probe] == 0x20 || codes[probe] == 0x09 { probe += 1 }
        guard probe < chars.count, isNewline(probe) else { return false }
        position = probe + 1
        return true
    }

    mutating func parse(section: String?, newLine startsOnNewLine: Bool) -> [CompiledTemplate.Node]? {
        var nodes: [CompiledTemplate.Node] = []
        var newLine = startsOnNewLine
        var whiteSpaceBefore = ""
        func text(_ string: String) -> CompiledTemplate.Node { .text(Array(string.utf8)) }
        while !atEnd {
            if newLine {
                let codes = self.codes
                whiteSpaceBefore = read { codes[$0] == 0x20 || codes[$0] == 0x09 }
            }
            guard let before = readUntilTagOrNewline() else { return nil }
            if atNewline {
                nodes.append(text(whiteSpaceBefore + before + String(current)))
                newLine = true
                position += 1
                continue
            }
            if !before.isEmpty {
                nodes.append(text(whiteSpaceBefore + before))
                whiteSpaceBefore = ""
                newLine = false
            }
            if atEnd { break }
            var setNewLine = false
            switch current {
            case "#", "^":
                let inverted = current == "^"
                position += 1
                guard let name = name() else { return nil }
                if newLine && lineFinished() {
                    setNewLine = true
                } else if !whiteSpaceBefore.isEmpty {
                    nodes.append(text(whiteSpaceBefore))
                    whiteSpaceBefore = ""
                }
                guard let body = parse(section: name, newLine: setNewLine && newLine) else { return nil }
                nodes.append(.section(CompiledTemplate.Name(name), inverted: inverted, body: body))
            case "/":
                position += 1
                guard let name = name(), name == section else { return nil }
                if !(newLine && lineFinished()), !whiteSpaceBefore.isEmpty {
                    nodes.append(text(whiteSpaceBefore))
                }
                return nodes
            case "!":
                position += 1
                guard readComment() else { return nil }
                setNewLine = newLine && lineFinished()
            case "{", "&":
                let triple = current == "{"
                if !whiteSpaceBefore.isEmpty {
                    nodes.append(text(whiteSpaceBefore))
                    whiteSpaceBefore = ""
                }
                position += 1
                guard let name = name(), !triple || read("}") else { return nil }
                nodes.append(.variable(CompiledTemplate.Name(name), escaped: false))
            case ">":
                position += 1
                skipWhitespace()
                guard code != UInt8(ascii: "*") else { return nil }
                let codes = self.codes, chars = self.chars
                let name = read { Self.isIn(Self.partialNameCharacters, Self.partialNameCodes, codes, chars, $0) }
                skipWhitespace()
                guard read("}}") else { return nil }
                if !whiteSpaceBefore.isEmpty { nodes.append(text(whiteSpaceBefore)) }
                if newLine && lineFinished() {
                    setNewLine = true
                    nodes.append(.partial(name, indentation: Array(whiteSpaceBefore.utf8)))
                } else {
                    nodes.append(.partial(name, indentation: nil))
                }
                partials.insert(name)
                whiteSpaceBefore = ""
            case "<", "$", "=", "%":
                return nil
            default:
                if !whiteSpaceBefore.isEmpty {
                    nodes.append(text(whiteSpaceBefore))
                    whiteSpaceBefore = ""
                }
                guard let name = name() else { return nil }
                nodes.append(.variable(CompiledTemplate.Name(name), escaped: true))
            }
            newLine = setNewLine
        }
        return section == nil ? nodes : nil
    }

    /// A comment through its `}}`, matched as the library matches it.
    mutating func readComment() -> Bool {
        var matched = 0
        while !atEnd {
            if codes[position] == UInt8(ascii: "}") {
                matched += 1
                if matched == 2 {
                    position += 1
                    return true
                }
            } else {
                matched = 0
            }
            position += 1
        }
        return false
    }
}

/// Renders compiled templates by name (a partial that is not among them renders nothing, as in the library).
struct CompiledTemplates: Sendable {
    let templates: [String: CompiledTemplate]

    func render(_ name: String, _ object: Any) -> String? {
        renderBytes(name, object).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The rendered UTF-8, for a page written as bytes (no `String` made and taken apart again).
    func renderBytes(_ name: String, _ object: Any) -> [UInt8]? {
        guard let template = templates[name] else { return nil }
        var out: [UInt8] = []
        var stack: [StackEntry] = [StackEntry(object)]
        render(template.nodes, stack: &stack, indentation: nil, into: &out)
        return out
    }

    /// A context object, its kind found once when it is pushed (not per lookup).
    struct StackEntry {
        let value: Any
        /// `MustacheCustomRepresentation`s stand for their representation; nil: nothing to look up in.
        let lookup: Any?
        let parent: MustacheParent?

        init(_ value: Any) {
            self.value = value
            // Strings (section values, sequence elements) are neither; a concrete check costs less
            // than the two protocol casts.
            if value is String {
                lookup = value
                parent = nil
                return
            }
            let target = (value as? MustacheCustomRepresentation).map(\.representation) ?? value
            lookup = target
            parent = target.flatMap { $0 as? MustacheParent }
        }

        func child(named name: String) -> Any? {
            if let parent { return parent.child(named: name) }
            guard let lookup else { return nil }
            return Self.mirrorChild(of: lookup, named: name)
        }

        /// What the library finds in a value that is not a `MustacheParent`: its stored property of that name.
        static func mirrorChild(of value: Any, named name: String) -> Any? {
            guard let matched = Mirror(reflecting: value).children.first(where: { $0.label == name }) else { return nil }
            return unwrappedOptional(matched.value)
        }

        /// An `Optional`'s wrapped value, nil for `none`; any other value as it is.
        static func unwrappedOptional(_ value: Any) -> Any? {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value }
            return mirror.children.first?.value
        }
    }

    private func lookup(_ name: CompiledTemplate.Name, in stack: [StackEntry]) -> Any? {
        var child: Any?
        switch name {
        case .current:
            child = stack.last?.value
        case .path(let names, let topOnly):
            guard let first = names.first else { return stack.last?.value }
            if topOnly {
                child = descend(names[...], from: stack[stack.count - 1])
            } else {
                for entry in stack.reversed() {
                    if let found = entry.child(named: first) {
                        child = names.count == 1 ? found : descend(names.dropFirst(), from: StackEntry(found))
                        break
                    }
                }
            }
        }
        if child is String || child is Bool { return child }
        if let custom = child as? MustacheCustomRepresentation { return custom.representation }
        return child
    }

    private func descend(_ names: ArraySlice<String>, from entry: StackEntry) -> Any? {
        guard let name = names.first else { return entry.value }
        guard let child = entry.child(named: name) else { return nil }
        return descend(names.dropFirst(), from: StackEntry(child))
    }

    private func render(_ nodes: [CompiledTemplate.Node], stack: inout [StackEntry], indentation: [UInt8]?, into out: inout [UInt8]) {
        guard let indentation, !indentation.isEmpty else {
            for node in nodes { render(node, stack: &stack, indentation: indentation, into: &out) }
            return
        }
        // As the library indents a partial: a token's output that starts after a line this render
        // ended ("\n", not "\r\n") gets the indentation first.
        let start = out.count
        for node in nodes {
            let before = out.count
            render(node, stack: &stack, indentation: indentation, into: &out)
            if out.count > before, before > start, out[before - 1] == 0x0A, !(before - 2 >= start && out[before - 2] == 0x0D) {
                out.insert(contentsOf: indentation, at: before)
            }
        }
    }

    private func render(_ node: CompiledTemplate.Node, stack: inout [StackEntry], indentation: [UInt8]?, into out: inout [UInt8]) {
        switch node {
        case .text(let bytes):
            out.append(contentsOf: bytes)
        case .variable(let name, let escaped):
            guard let value = lookup(name, in: stack) else { return }
            let text = value as? String ?? (value as? MustacheCustomRenderable)?.renderText ?? String(describing: Self.unwrapped(value))
            if escaped { HTMLEscaping.appendEscaped(text.utf8, to: &out) } else { out.append(contentsOf: text.utf8) }
        case .section(let name, let inverted, let body):
            let value = lookup(name, in: stack)
            if let bool = value as? Bool {
                if bool != inverted { render(body, stack: &stack, indentation: indentation, into: &out) }
            } else if let value, !(value is String), let sequence = value as? any MustacheSequence {
                let elements = Self.elements(sequence)
                if inverted {
                    guard elements.isEmpty else { return }
                    stack.append(StackEntry(value))
                    render(body, stack: &stack, indentation: indentation, into: &out)
                    stack.removeLast()
                } else if elements.count >= Self.parallelSection {
                    // A long list (the index's file table: a row cost 160,000 instructions of lookups
                    // through `Any`, 63 M at 400 files, on one core at the end of the report) rendered a
                    // chunk of elements per core, joined in order. The bytes are the loop's: an element's
                    // output depends only on it, the stack below it and the indentation, whose check reads
                    // only bytes written since the element's own render began.
                    let below = stack
                    let ranges = Parallel.chunks(elements.count, minimumChunk: Self.parallelSection / 4)
                    let pieces = Parallel.map(ranges.count) { k -> [UInt8] in
                        var stack = below
                        var piece: [UInt8] = []
                        for element in elements[ranges[k]] {
                            stack.append(StackEntry(element))
                            render(body, stack: &stack, indentation: indentation, into: &piece)
                            stack.removeLast()
                        }
                        return piece
                    }
                    out.reserveCapacity(out.count + pieces.reduce(0) { $0 + $1.count })
                    for piece in pieces { out.append(contentsOf: piece) }
                } else {
                    for element in elements {
                        stack.append(StackEntry(element))
                        render(body, stack: &stack, indentation: indentation, into: &out)
                        stack.removeLast()
                    }
                }
            } else if let value, !(value is String), let renderable = value as? MustacheCustomRenderable, renderable.isNull {
                if inverted { render(body, stack: &stack, indentation: indentation, into: &out) }
            } else if let value {
                guard !inverted else { return }
                stack.append(StackEntry(value))
                render(body, stack: &stack, indentation: indentation, into: &out)
                stack.removeLast()
            } else if inverted {
                render(body, stack: &stack, indentation: indentation, into: &out)
            }
        case .partial(let name, let indented):
            guard let template = templates[name] else { return }
            let inner = indented.map { (indentation ?? []) + $0 } ?? indentation
            render(template.nodes, stack: &stack, indentation: inner, into: &out)
        }
    }

    private static func elements<S: Sequence>(_ sequence: S) -> [Any] { sequence.map { $0 as Any } }

    /// From this many elements on, a section's elements are rendered on every core (the pages' own
    /// lists are shorter: the function tables are rows of `HTMLRowTemplate`, not sections).
    static let parallelSection = 128

    /// `Optional` values print their wrapped value (`none` prints as itself), as in the library.
    private static func unwrapped(_ value: Any) -> Any { StackEntry.unwrappedOptional(value) ?? value }
}
