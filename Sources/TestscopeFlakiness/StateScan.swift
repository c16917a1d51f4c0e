import Foundation
import TestscopeCoverage

/// One Swift file's tokens with their scopes: its declarations of state (`declare`) and its uses of
/// declared state and of the process's external state (`uses`), each use a write or a read.
struct StateScan {
    let path: String
    let tokens: [SourceToken]
    let bytes: [UInt8]
    /// UTF-8 offset of each line's start (line 1 at index 0).
    let lineStarts: [Int]
    /// For each token: the path of the types around it (`Outer.Inner`, an extension's `A.B`), nil at top level.
    let typePath: [String?]
    /// For each token: inside a body (a function's, an accessor's, a closure's), where a `var` is a local.
    let inCode: [Bool]
    /// For each token: the function whose body it is in (a closure's is its function's), nil outside any.
    let function: [String?]

    init(path: String, text: String) {
        self.path = path
        tokens = SourceTokens.tokens(text, language: .swift)
        let bytes = Array(text.utf8)
        self.bytes = bytes
        lineStarts = [0] + bytes.indices.filter { bytes[$0] == 10 }.map { $0 + 1 }
        var typePath: [String?] = [], inCode: [Bool] = [], function: [String?] = []
        typePath.reserveCapacity(tokens.count)
        inCode.reserveCapacity(tokens.count)
        function.reserveCapacity(tokens.count)
        // Per `{`: the type it opens (nil for a body) and the function around it; the path and function
        // now, kept as the stack changes (not joined again for every token).
        var stack: [(type: String?, function: String?)] = []
        var current: (path: String?, bodies: Int, function: String?) = (nil, 0, nil)
        var pendingType: String?, pendingFunction: String?
        for i in tokens.indices {
            let text = tokens[i].text
            typePath.append(current.path)
            inCode.append(current.bodies > 0)
            function.append(current.function)
            if Self.typeKeywords.contains(text), i + 1 < tokens.count, tokens[i + 1].kind == .word,
               !Self.declarationKeywords.contains(tokens[i + 1].text), !Self.modifiers.contains(tokens[i + 1].text) {
                var name = tokens[i + 1].text
                var j = i + 2
                while text == "extension", j + 1 < tokens.count, tokens[j].text == ".", tokens[j + 1].kind == .word {
                    name += "." + tokens[j + 1].text
                    j += 2
                }
                pendingType = name
            } else if Self.declarationKeywords.contains(text) || text == "=" {
                pendingType = nil
                if text != "=" {
                    let isFunction = ["func", "init", "subscript", "deinit"].contains(text)
                    pendingFunction = isFunction ? (text == "func" && i + 1 < tokens.count ? tokens[i + 1].text : text) : nil
                }
            } else if text == "{" {
                let function = pendingType == nil ? (pendingFunction ?? current.function) : nil
                stack.append((pendingType, function))
                pendingType = nil
                pendingFunction = nil
                (current.path, current.bodies, current.function) = Self.state(of: stack)
            } else if text == "}" {
                _ = stack.popLast()
                (current.path, current.bodies, current.function) = Self.state(of: stack)
            }
        }
        self.typePath = typePath
        self.inCode = inCode
        self.function = function
    }

    /// The type path, the number of bodies and the function of a stack of braces.
    static func state(of stack: [(type: String?, function: String?)]) -> (String?, Int, String?) {
        (stack.compactMap(\.type).joined(separator: ".").nilIfEmpty, stack.filter { $0.type == nil }.count, stack.last?.function)
    }

    static let typeKeywords: Set<String> = ["enum", "struct", "class", "actor", "extension", "protocol"]
    static let declarationKeywords: Set<String> = ["func", "var", "let", "init", "deinit", "subscript", "case", "typealias"]
    static let modifiers: Set<String> = [
        "static", "class", "public", "private", "fileprivate", "internal", "package", "open", "final", "override",
        "nonisolated", "unsafe", "lazy", "weak", "unowned", "mutating", "nonmutating", "dynamic", "set", "(", ")",
    ]

    /// The token's text; a `(` or `[` that starts a line is still that bracket here.
    func text(_ i: Int) -> String {
        guard i >= 0, i < tokens.count else { return "" }
        let text = tokens[i].text
        return text.hasPrefix("\n") ? String(text.dropFirst()) : text
    }

    func line(_ i: Int) -> Int { Int(tokens[i].start.line) }

    /// The source text from token `first` to token `last`, both included.
    func source(_ first: Int, _ last: Int) -> String {
        func offset(_ p: SourcePosition) -> Int { min(bytes.count, lineStarts[Int(p.line) - 1] + Int(p.column) - 1) }
        let from = offset(tokens[first].start)
        return String(decoding: bytes[from..<max(from, offset(tokens[last].end))], as: UTF8.self)
    }

    /// The index of the bracket closing the one at `open` (`(`, `[` or `{`), or nil.
    func closing(_ open: Int) -> Int? {
        let pairs = ["(": ")", "[": "]", "{": "}"]
        var depth = 0
        for i in open..<tokens.count {
            let t = text(i)
            if pairs[t] != nil { depth += 1 } else if pairs.values.contains(t) { depth -= 1; if depth == 0 { return i } }
        }
        return nil
    }

    /// The arguments of the call whose `(` is at `open`: each label (nil: none) and its expression's token range.
    func arguments(_ open: Int) -> [(label: String?, first: Int, last: Int)] {
        guard let close = closing(open), close > open + 1 else { return [] }
        var result: [(String?, Int, Int)] = []
        var start = open + 1, depth = 0
        for i in (open + 1)...close {
            let t = text(i)
            if ["(", "[", "{"].contains(t) { depth += 1 } else if [")", "]", "}"].contains(t), i < close { depth -= 1 }
            guard (t == "," && depth == 0) || i == close, i > start else { if t == "," && depth == 0 { start = i + 1 }; continue }
            let labelled = tokens[start].kind == .word && text(start + 1) == ":" && start + 2 < i
            result.append((labelled ? text(start) : nil, labelled ? start + 2 : start, i - 1))
            start = i + 1
        }
        return result
    }

    // MARK: Declarations

    /// Records the file's globals, statics, classes' stored properties and singletons.
    func declare(into declarations: inout StateDeclarations) {
        for i in tokens.indices {
            if text(i) == "class" || text(i) == "actor", i + 1 < tokens.count, tokens[i + 1].kind == .word,
               !Self.declarationKeywords.contains(text(i + 1)), !Self.modifiers.contains(text(i + 1)) {
                declarations.classes.insert(text(i + 1))
            }
            guard text(i) == "var" || text(i) == "let", !inCode[i], i + 1 < tokens.count, tokens[i + 1].kind == .word else { continue }
            var modifiers = Set<String>()
            var j = i - 1
            while j >= 0, Self.modifiers.contains(text(j)) || text(j).hasPrefix("@") { modifiers.insert(text(j)); j -= 1 }
            let name = text(i + 1).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let isStatic = modifiers.contains("static") || modifiers.contains("class")
            let isPrivate = modifiers.contains("private") || modifiers.contains("fileprivate")
            let owner = typePath[i]
            if let owner { declarations.typeMembers[owner, default: []].insert(name) }
            guard let shape = storage(after: i + 1) else { continue }  // computed
            let qualified = owner.map { $0 + "." + name } ?? name
            let reset = isPrivate ? nil : shape.initializer.map { qualified + " = " + $0 } ?? (shape.optional ? qualified + " = nil" : nil)
            if let owner, !isStatic {
                if text(i) == "var" {
                    let type = owner.split(separator: ".").last.map(String.init) ?? owner
                    declarations.members[type, default: []].append((name, shape.initializer, isPrivate, path, line(i + 1)))
                }
                continue
            }
            if let className = shape.constructs {
                declarations.singletons.append((qualified, owner, className == "Self" ? (owner?.split(separator: ".").last.map(String.init) ?? className) : className))
            }
            guard text(i) == "var" else { continue }
            let variable = DeclaredVariable(name: qualified, kind: owner == nil ? .global : .staticProperty, reset: reset, file: path, line: line(i + 1))
            if let owner { declarations.statics[owner, default: [:]][name] = variable } else { declarations.globals[name] = variable }
        }
    }

    /// After a stored property's name at `nameIndex`: its initializer's text, whether its type is an
    /// optional, and the class its initializer constructs (`Registry()`); nil for a computed property.
    func storage(after nameIndex: Int) -> (initializer: String?, optional: Bool, constructs: String?)? {
        var k = nameIndex + 1
        var optional = false
        if text(k) == ":" {
            var depth = 0
            k += 1
            while k < tokens.count {
                let t = text(k)
                if depth == 0, t == "=" || t == "{" || tokens[k].start.line > tokens[k - 1].end.line || t == ";" || t == "}" { break }
                if ["(", "["].contains(t) || t == "<" { depth += 1 } else if [")", "]"].contains(t) || t == ">" { depth -= 1 }
                k += 1
            }
            optional = text(k - 1).hasSuffix("?") || text(k - 1).hasSuffix("!") || text(nameIndex + 2) == "Optional"
        }
        guard k < tokens.count else { return (nil, optional, nil) }
        if text(k) == "{" {
            return ["willSet", "didSet"].contains(text(k + 1)) ? (nil, optional, nil) : nil
        }
        guard text(k) == "=", k + 1 < tokens.count else { return (nil, optional, nil) }
        let first = k + 1
        var last = first
        var depth = 0
        var i = first
        while i < tokens.count {
            let t = text(i)
            if i > first, depth == 0, tokens[i].start.line > tokens[i - 1].end.line || t == ";" || t == "}" || (t == "{" && text(i - 1) != "=") { break }
            if ["(", "[", "{"].contains(t) { depth += 1 } else if [")", "]", "}"].contains(t) { depth -= 1 }
            last = i
            i += 1
        }
        var constructs: String?
        if tokens[first].kind == .word, text(first + 1) == "(" || (text(first + 1) == "." && text(first + 2) == "init") {
            constructs = text(first)
        }
        return (source(first, last), optional, constructs)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
