import Foundation

/// Demangles Swift symbol names into the names reports show, with the toolchain's libswiftDemangle
/// (`DemanglerLibrary`); without it the names stay mangled.
package struct SwiftDemangler: Sendable {
    /// Where the toolchain's libswiftDemangle is (or would be); nil when no toolchain was found.
    package let library: URL?

    package init(library: URL?) { self.library = library }

    /// A session that takes names as they are read and demangles them at its end.
    package func session() -> DemangleSession { DemangleSession(library: library) }

    /// Modules whose names are stripped from return types even when no function of theirs is seen.
    static let knownModules: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "_Concurrency", "XCTest", "Testing", "Dispatch"]

    /// The display name from the simplified name and the full name's return type, with the
    /// qualifiers of `modules` stripped from the type. Functions get their return type; closures
    /// (whose simplified name has none) do not.
    static func displayName(simplified: String, returnType: String?, modules: Set<String>) -> String {
        guard let returnType, !isClosure(simplified), simplified.hasSuffix(")") else { return simplified }
        return simplified + " -> " + stripModules(returnType, modules: modules)
    }

    /// The mangled symbol inside a profile name (`file.swift:$s…` or `file;$s…` forms included): from
    /// the first `$` unless the name starts with one.
    package static func symbol(in name: String) -> String {
        guard !name.hasPrefix("$"), let dollar = name.utf8.firstIndex(of: UInt8(ascii: "$")) else { return name }
        return String(name[dollar...])
    }

    /// Whether `name` is the symbol inside the profile name `mangled` (compared as bytes, nothing copied).
    static func symbolIs(_ name: String, in mangled: String) -> Bool {
        let bytes = mangled.utf8
        let start = bytes.first == UInt8(ascii: "$") ? bytes.startIndex : bytes.firstIndex(of: UInt8(ascii: "$")) ?? bytes.startIndex
        return bytes[start...].elementsEqual(name.utf8)
    }

    /// True for closures and autoclosures, by demangled name.
    package static func isClosure(_ name: String) -> Bool {
        name.hasPrefix("closure #") || name.hasPrefix("implicit closure #")
    }

    /// True if a mangled name ends in a closure marker (`fU_`, `fu0_`, …).
    package static func isMangledClosure(_ mangled: String) -> Bool {
        // Read backwards: `_`, optional digits, then `U` or `u`, then `f`.
        var rest = mangled.utf8[...]
        guard rest.popLast() == UInt8(ascii: "_") else { return false }
        while let last = rest.last, last >= 0x30 && last <= 0x39 { rest.removeLast() }
        guard let marker = rest.popLast(), marker == UInt8(ascii: "U") || marker == UInt8(ascii: "u") else { return false }
        return rest.last == UInt8(ascii: "f")
    }

    /// The module of a plain function's full name (`Shapes` of `Shapes.f(…)`): the text before the
    /// first `.`, when no space or bracket comes first.
    static func module(ofFull full: String) -> String? {
        for index in full.utf8.indices {
            switch full.utf8[index] {
            case UInt8(ascii: "."): return index > full.utf8.startIndex ? String(full[..<index]) : nil
            case UInt8(ascii: " "), UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "<"): return nil
            default: continue
            }
        }
        return nil
    }

    /// The text after the last top-level ` -> ` of a full demangled function name, trimmed of
    /// spaces and tabs; nil when there is none.
    static func returnType(ofFull full: String) -> String? {
        var full = full
        return full.withUTF8 { bytes in returnType(ofFull: bytes) }
    }

    private static func returnType(ofFull bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var depth = 0
        var start: Int? = nil
        for i in bytes.indices {
            switch bytes[i] {
            case UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">"):
                if i == 0 || bytes[i - 1] != UInt8(ascii: "-") { depth -= 1 }
            case UInt8(ascii: "-"):
                if depth == 0, i > 0, i + 2 < bytes.count, bytes[i - 1] == 0x20, bytes[i + 1] == UInt8(ascii: ">") { start = i + 3 }
            default: break
            }
        }
        guard var first = start else { return nil }
        var last = bytes.count
        while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
        while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
        return first < last ? String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<last]), as: UTF8.self) : nil
    }

    /// `type` without the `Module.` qualifiers of `modules`.
    static func stripModules(_ type: String, modules: Set<String>) -> String {
        guard type.utf8.contains(UInt8(ascii: ".")) else { return type }
        let bytes = Array(type.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var tokenStart = 0
        var i = 0
        func isIdentifier(_ b: UInt8) -> Bool { b >= 0x80 || b == 0x5F || (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) }
        while i <= bytes.count {
            if i < bytes.count, isIdentifier(bytes[i]) { i += 1; continue }
            let token = bytes[tokenStart..<i]
            if i < bytes.count, bytes[i] == UInt8(ascii: "."), !token.isEmpty, modules.contains(String(decoding: token, as: UTF8.self)) {
                i += 1
                tokenStart = i
                continue
            }
            out += token
            if i < bytes.count { out.append(bytes[i]) }
            i += 1
            tokenStart = i
        }
        return String(decoding: out, as: UTF8.self)
    }
}
