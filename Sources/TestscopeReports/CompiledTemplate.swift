import Foundation
import Mustache

/// A page template compiled once and rendered without the Mustache library, with its semantics:
/// the same parse (standalone lines, partial indentation), the same lookups up the context stack,
/// the same sections over sequences, booleans and values. The library costs about 0.3 ms a file page
/// (string concatenation per token, a name split and protocol casts per lookup, escaping a
/// `Character` at a time): 15 % of the HTML report's CPU on the 800-file package.
///
/// Only text, variables (`{{x}}`, `{{{x}}}`, `{{& x}}`, dotted and `.`), sections, inverted sections,
/// plain partials and comments are compiled; a template with anything else (transforms, set
/// delimiters, inheritance, dynamic partials, pragmas) — or one that includes such a template —
/// renders through the library. `CompiledTemplateTests` compares the two on the real reports and on
/// seeded mutations of the real templates. One difference is deliberate: `{{x}}` escapes every `<`, `>`,
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
        var parser = TemplateParser(Array(text))
        guard let nodes = parser.parse(section: nil, newLine: true) else { return nil }
        self.nodes = nodes
        partials = parser.partials
    }
}

/// The library's parser (`MustacheTemplate.parse`), step for step, for the compiled subset.
private struct TemplateParser {
    let chars: [Character]
    var position = 0
    var partials: Set<String> = []

    init(_ chars: [Character]) { self.chars = chars }

    var atEnd: Bool { position == chars.count }
    var current: Character { atEnd ? "\0" : chars[position] }

    static let nameCharacters = Set<Character>("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*")
    static let partialNameCharacters = Set<Character>("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*/")

    mutating func read(while accept: (Character) -> Bool) -> String {
        let start = position
        while !atEnd, accept(chars[position]) { position += 1 }
        return String(chars[start..<position])
    }

    mutating func read(_ text: String) -> Bool {
        let wanted = Array(text)
        guard position + wanted.count <= chars.count, Array(chars[position..<(position + wanted.count)]) == wanted else { return false }
        position += wanted.count
        return true
    }

    /// Text up to a newline (not consumed) or up to and past `{{`; nil where the library would throw.
    mutating func readUntilTagOrNewline() -> String? {
        var text = ""
        while !atEnd {
            text += read { $0 != "\n" && $0 != "\r\n" && $0 != "{" }
            if current.isNewline { break }
            if current == "{" {
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
        _ = read { $0.isWhitespace }
        let text = read { Self.nameCharacters.contains($0) || $0 == "(" || $0 == ")" }
        _ = read { $0.isWhitespace }
        guard read("}}"), !text.contains("(") && !text.contains(")") else { return nil }
        return text
    }

    /// At the end of the input, or only spaces and tabs before a newline (then consumed through it).
    mutating func lineFinished() -> Bool {
        if atEnd { return true }
        var probe = position
        while probe < chars.count, chars[probe] == " " || chars[probe] == "\t" { probe += 1 }
        guard probe < chars.count, chars[probe].isNewline else { return false }
        position = probe + 1
        return true
    }

    mutating func parse(section: String?, newLine startsOnNewLine: Bool) -> [CompiledTemplate.Node]? {
        var nodes: [CompiledTemplate.Node] = []
        var newLine = startsOnNewLine
        var whiteSpaceBefore = ""
        func text(_ string: String) -> CompiledTemplate.Node { .text(Array(string.utf8)) }
        while !atEnd {
            if newLine { whiteSpaceBefore = read { $0 == " " || $0 == "\t" } }
            guard let before = readUntilTagOrNewline() else { return nil }
            if current.isNewline {
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
                _ = read { $0.isWhitespace }
                guard current != "*" else { return nil }
                let name = read { Self.partialNameCharacters.contains($0) }
                _ = read { $0.isWhitespace }
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
        let closing: [Character] = ["}", "}"]
        var matched = 0
        while !atEnd {
            if chars[position] == closing[matched] {
                matched += 1
                if matched == closing.count {
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

/// Renders compiled templates; every template a render reaches must be compiled (`CompiledTemplates.covers`).
struct CompiledTemplates: Sendable {
    let templates: [String: CompiledTemplate]

    /// The templates that compile, and of those the ones whose partials (all the way down) compile too.
    init(_ texts: [String: String]) {
        var compiled: [String: CompiledTemplate] = [:]
        for (name, text) in texts { compiled[name] = CompiledTemplate(text) }
        // Drop, until nothing changes, every template that names one not compiled.
        var changed = true
        while changed {
            changed = false
            for (name, template) in compiled where !template.partials.allSatisfy({ compiled[$0] != nil }) {
                compiled[name] = nil
                changed = true
            }
        }
        templates = compiled
    }

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

    /// `Optional` values print their wrapped value (`none` prints as itself), as in the library.
    private static func unwrapped(_ value: Any) -> Any { StackEntry.unwrappedOptional(value) ?? value }
}
