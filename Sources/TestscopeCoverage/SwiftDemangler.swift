import Foundation
import TestscopeExecution

/// Demangles Swift symbol names in one `swift-demangle` process per batch (never one per symbol).
public struct SwiftDemangler: Sendable {
    public let tool: URL?

    public init(tool: URL?) { self.tool = tool }

    /// Display names for mangled names: the simplified form (no module names), plus the return
    /// type for functions, e.g. `Calc.add(_:_:) -> Int`; mangled names are kept if demangling fails.
    public func displayNames(for names: [String]) -> [String: String] {
        let unique = Array(Set(names)).sorted()
        guard let tool, !unique.isEmpty else { return Dictionary(uniqueKeysWithValues: unique.map { ($0, $0) }) }
        let symbols = unique.map(Self.symbol(in:))
        let simplified = run(tool, ["--simplified"], symbols)
        let full = run(tool, [], symbols)
        guard let simplified, simplified.count == unique.count else {
            return Dictionary(uniqueKeysWithValues: unique.map { ($0, $0) })
        }
        var modules: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "_Concurrency", "XCTest", "Testing", "Dispatch"]
        if let full {
            for name in full {
                if let dot = name.firstIndex(of: "."), !name[..<dot].contains(where: { " (<[".contains($0) }) {
                    modules.insert(String(name[..<dot]))
                }
            }
        }
        var result: [String: String] = [:]
        for (i, mangled) in unique.enumerated() {
            var display = simplified[i]
            if display == symbols[i] { result[mangled] = mangled; continue }
            if let full, full.count == unique.count, !Self.isClosure(display),
               display.hasSuffix(")"), let returnType = Self.returnType(of: full[i]) {
                display += " -> " + Self.stripModules(returnType, modules: modules)
            }
            result[mangled] = display
        }
        return result
    }

    private func run(_ tool: URL, _ arguments: [String], _ symbols: [String]) -> [String]? {
        let input = Data((symbols.joined(separator: "\n") + "\n").utf8)
        guard let result = try? ProcessRunner.run(tool, arguments, input: input), result.succeeded else { return nil }
        var lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The mangled symbol inside a profile name (`file.swift:$s…` or `file;$s…` forms included).
    public static func symbol(in name: String) -> String {
        for marker in ["$s", "$S", "_$s", "$e"] {
            if let range = name.range(of: marker) { return String(name[range.lowerBound...]) }
        }
        return name
    }

    /// True for closures and autoclosures, by demangled name or mangled suffix.
    public static func isClosure(_ name: String) -> Bool {
        name.hasPrefix("closure #") || name.hasPrefix("implicit closure #")
    }

    /// True if a mangled name ends in a closure marker (`fU_`, `fu0_`, …).
    public static func isMangledClosure(_ mangled: String) -> Bool {
        var chars = Array(mangled.utf8)
        guard chars.last == UInt8(ascii: "_") else { return false }
        chars.removeLast()
        while let last = chars.last, last >= 0x30 && last <= 0x39 { chars.removeLast() }
        guard chars.count >= 2 else { return false }
        let kind = chars[chars.count - 1]
        return chars[chars.count - 2] == UInt8(ascii: "f") && (kind == UInt8(ascii: "U") || kind == UInt8(ascii: "u"))
    }

    /// The text after the last top-level ` -> ` of a full demangled function name.
    static func returnType(of full: String) -> String? {
        var depth = 0
        var result: String.Index? = nil
        let chars = Array(full)
        var i = 0
        var index = full.startIndex
        while i < chars.count {
            let c = chars[i]
            if c == "(" || c == "<" || c == "[" { depth += 1 }
            if c == ")" || c == "]" || (c == ">" && (i == 0 || chars[i - 1] != "-")) { depth -= 1 }
            if depth == 0, c == "-", i + 1 < chars.count, chars[i + 1] == ">", i > 0, chars[i - 1] == " " {
                result = full.index(index, offsetBy: 3, limitedBy: full.endIndex)
            }
            index = full.index(after: index)
            i += 1
        }
        guard let result, result < full.endIndex else { return nil }
        let type = String(full[result...]).trimmingCharacters(in: .whitespaces)
        return type.isEmpty ? nil : type
    }

    /// Removes `Module.` qualifiers of known modules from a type.
    static func stripModules(_ type: String, modules: Set<String>) -> String {
        var out = ""
        var token = ""
        for c in type {
            if c.isLetter || c.isNumber || c == "_" { token.append(c); continue }
            if c == ".", modules.contains(token) { token = ""; continue }
            out += token
            token = ""
            out.append(c)
        }
        return out + token
    }
}
