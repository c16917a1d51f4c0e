import Foundation
import TestscopeCoverage

/// The uses of state in one file: of the package's declared variables, and of the process's external
/// state through its APIs (`UserDefaults`, the environment, files).
extension StateScan {
    static let assignments: Set<String> = ["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "&+=", "&-=", "&*=", "??="]
    /// Methods that change the value they are called on (a collection, a `Bool`).
    static let mutatingMethods: Set<String> = [
        "append", "insert", "remove", "removeAll", "removeFirst", "removeLast", "removeValue", "removeSubrange", "replaceSubrange",
        "updateValue", "merge", "formUnion", "formIntersection", "formSymmetricDifference", "subtract", "sort", "reverse", "shuffle",
        "popLast", "popFirst", "toggle", "negate", "swapAt", "reserveCapacity",
    ]
    static let defaultsWrites: Set<String> = ["set", "setValue", "removeObject"]
    static let defaultsReads: Set<String> = [
        "bool", "string", "integer", "double", "float", "object", "array", "dictionary", "data", "url", "stringArray", "value",
    ]
    /// FileManager's and Foundation's file calls: the labels that name the path, and whether the call writes.
    static let fileCalls: [String: (labels: Set<String>, write: Bool)] = [
        "createFile": (["atPath"], true), "removeItem": (["atPath", "at"], true), "createDirectory": (["atPath", "at"], true),
        "moveItem": (["atPath", "at"], true), "copyItem": (["toPath", "to"], true), "write": (["to", "toFile"], true),
        "fileExists": (["atPath"], false), "contents": (["atPath"], false), "contentsOfDirectory": (["atPath", "at"], false),
        "attributesOfItem": (["atPath"], false),
    ]

    func uses(of declarations: StateDeclarations) -> [StateUse] {
        var uses: [StateUse] = []
        for i in tokens.indices where tokens[i].kind == .word {
            let name = text(i), previous = text(i - 1)
            if ["var", "let", "func", "case"].contains(previous) || isLabel(i) { continue }
            let qualifier = previous == "." ? text(i - 2) : nil
            // A global, used bare.
            if qualifier == nil, let global = declarations.globals[name] {
                uses.append(use(global.name, .global, global.reset, start: i, end: i))
            }
            // A static: `Type.name`, `Self.name`, or bare inside its own type.
            for (owner, variable) in declarations.staticsByName[name] ?? [] {
                let own = typePath[i].map { Self.sameType($0, owner) } ?? false
                let matches = qualifier.map { $0 == owner.split(separator: ".").last.map(String.init) || (own && ($0 == "Self" || $0 == "self")) } ?? own
                if matches { uses.append(use(variable.name, .staticProperty, variable.reset, start: qualifier == nil ? i : i - 2, end: i)) }
            }
            // A singleton's stored property: `Type.shared.name`, or bare (`self.name`) inside its class.
            for singleton in declarations.singletonsByMember[name] ?? [] {
                let holder = singleton.holder.split(separator: ".").map(String.init)
                let inClass = typePath[i]?.split(separator: ".").last.map(String.init) == singleton.className
                let throughHolder = qualifier == holder.last && (holder.count == 1 || text(i - 4) == holder[holder.count - 2] || text(i - 4) == "Self")
                guard throughHolder || (inClass && (qualifier == nil || qualifier == "self")) else { continue }
                let full = singleton.holder + "." + name
                let reset = singleton.isPrivate ? nil : singleton.initializer.map { full + " = " + $0 }
                uses.append(use(full, .singleton, reset, start: qualifier == nil ? i : i - 2, end: i))
            }
            if let external = externalUse(at: i, declarations) { uses.append(external) }
        }
        return uses
    }

    private func use(_ name: String, _ kind: SharedStateItem.Kind, _ reset: String?, start: Int, end: Int) -> StateUse {
        StateUse(name: name, kind: kind, reset: reset, write: isWrite(start: start, end: end), line: line(end))
    }

    /// `Outer.Inner` and an extension of `Inner` inside `Outer` name one type.
    static func sameType(_ a: String, _ b: String) -> Bool { a == b || a.hasSuffix("." + b) || b.hasSuffix("." + a) }

    /// An argument label or a parameter name: `f(limit: 3)`, `func f(limit: Int)`.
    func isLabel(_ i: Int) -> Bool { text(i + 1) == ":" && (text(i - 1) == "(" || text(i - 1) == ",") }

    /// Whether the reference from token `start` to `end` is changed there: assigned (`=`, `+=`), passed
    /// `inout` (`&x`), subscript-assigned (`x[k] = v`), a mutating method called on it (`x.append(…)`),
    /// or a property of it assigned (`x.limit = 3`).
    func isWrite(start: Int, end: Int) -> Bool {
        if text(start - 1) == "&" { return true }
        var k = end + 1
        if Self.isAssignment(text(k)) { return true }
        if tokens.indices.contains(k), tokens[k].text == "[", let close = closing(k) {
            k = close + 1
            if Self.isAssignment(text(k)) { return true }
        }
        if [".", "?.", "!."].contains(text(k)), tokens.indices.contains(k + 1), tokens[k + 1].kind == .word {
            if Self.mutatingMethods.contains(text(k + 1)), text(k + 2) == "(" { return true }
            if Self.isAssignment(text(k + 2)) { return true }
        }
        return false
    }

    static func isAssignment(_ token: String) -> Bool {
        assignments.contains(token) || (token.hasPrefix("=") && !token.hasPrefix("==") && !token.hasPrefix("=>"))
    }

    // MARK: External state

    /// A `UserDefaults` key, an environment variable or a file used at token `i`.
    func externalUse(at i: Int, _ declarations: StateDeclarations) -> StateUse? {
        let name = text(i), previous = text(i - 1)
        guard text(i + 1) == "(" || (name == "environment" && tokens.indices.contains(i + 1) && tokens[i + 1].text == "[") else { return nil }
        if previous == ".", Self.defaultsWrites.contains(name) || Self.defaultsReads.contains(name), receiverMentionsDefaults(before: i - 1),
           let key = arguments(i + 1).first(where: { $0.label == "forKey" }) {
            let keyText = itemName(key.first, key.last, at: i, declarations)
            return StateUse(name: "UserDefaults.standard[\(keyText)]", kind: .userDefaults,
                            reset: "UserDefaults.standard.removeObject(forKey: \(keyText))", write: Self.defaultsWrites.contains(name), line: line(i))
        }
        if previous != ".", ["setenv", "unsetenv", "getenv"].contains(name), let first = arguments(i + 1).first {
            return environmentUse(first.first, first.last, write: name != "getenv", at: i, declarations)
        }
        if previous == ".", name == "environment", text(i - 2) == "processInfo", let close = closing(i + 1), close > i + 2 {
            return environmentUse(i + 2, close - 1, write: false, at: i, declarations)
        }
        if let call = Self.fileCalls[name], previous == "." || name != "write",
           let path = arguments(i + 1).first(where: { $0.label.map(call.labels.contains) ?? false }) {
            return fileUse(path.first, path.last, write: call.write, at: i, declarations)
        }
        if ["Data", "String", "NSData", "NSString"].contains(name), previous != ".",
           let path = arguments(i + 1).first(where: { $0.label == "contentsOf" || $0.label == "contentsOfFile" }) {
            return fileUse(path.first, path.last, write: false, at: i, declarations)
        }
        if previous != ".", name == "fopen" || name == "unlink", let path = arguments(i + 1).first {
            let mode = arguments(i + 1).dropFirst().first.map { source($0.first, $0.last) } ?? ""
            return fileUse(path.first, path.last, write: name == "unlink" || !(mode.hasPrefix("\"r") && !mode.contains("+")), at: i, declarations)
        }
        return nil
    }

    /// `UserDefaults.standard.set`, `defaults.bool`: the receiver chain names the defaults.
    func receiverMentionsDefaults(before dot: Int) -> Bool {
        var k = dot - 1
        while k >= 0, tokens[k].kind == .word {
            if text(k) == "UserDefaults" || text(k).lowercased().contains("defaults") { return true }
            guard text(k - 1) == "." || text(k - 1) == "?." else { return false }
            k -= 2
        }
        return false
    }

    private func environmentUse(_ first: Int, _ last: Int, write: Bool, at i: Int, _ declarations: StateDeclarations) -> StateUse {
        let expression = source(first, last)
        let literal = first == last && tokens[first].kind == .string && !expression.contains("\\(")
        let variable = literal ? String(expression.dropFirst().dropLast()) : itemName(first, last, at: i, declarations)
        return StateUse(name: "environment variable " + variable, kind: .environment, reset: "unsetenv(\(expression))", write: write, line: line(i))
    }

    private func fileUse(_ first: Int, _ last: Int, write: Bool, at i: Int, _ declarations: StateDeclarations) -> StateUse {
        StateUse(name: "file " + itemName(first, last, at: i, declarations), kind: .file, reset: nil, write: write, line: line(i))
    }

    /// A key or path expression as the item's name: its text, but a bare property of the enclosing type
    /// qualified (`path` in `ExportLock` is `ExportLock.path`, as other files name it), and a bare local or
    /// parameter marked with its function (`url (in save)`: another function's `url` is another value).
    func itemName(_ first: Int, _ last: Int, at i: Int, _ declarations: StateDeclarations) -> String {
        let expression = source(first, last)
        guard first == last, tokens[first].kind == .word else { return expression }
        if let owner = typePath[i], declarations.typeMembers[owner]?.contains(expression) == true, let type = owner.split(separator: ".").last {
            return String(type) + "." + expression
        }
        if declarations.globals[expression] != nil || expression.first?.isUppercase == true { return expression }
        return function[i].map { "\(expression) (in \($0))" } ?? expression
    }
}
