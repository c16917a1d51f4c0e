import Foundation
import TestscopeExecution

/// Demangles Swift symbol names with two `swift-demangle` processes per report (simplified and
/// full form), never one per symbol.
public struct SwiftDemangler: Sendable {
    public let tool: URL?

    public init(tool: URL?) { self.tool = tool }

    /// Display names for mangled names: the simplified form (no module names), plus the return
    /// type for functions, e.g. `Calc.add(_:_:) -> Int`; mangled names are kept if demangling fails.
    public func displayNames(for names: [String]) -> [String: String] {
        let session = session()
        for name in names { session.add(name) }
        return session.finish()
    }

    /// A session that demangles names as they are added (while an export is still being read).
    public func session() -> DemangleSession { DemangleSession(tool: tool) }

    /// Builds display names from the two `swift-demangle` passes over `unique` (same order).
    static func displayNames(unique: [String], symbols: [String], simplified: [String]?, full: [String]?) -> [String: String] {
        guard let simplified, simplified.count == unique.count else {
            return Dictionary(uniqueKeysWithValues: unique.map { ($0, $0) })
        }
        var modules: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "_Concurrency", "XCTest", "Testing", "Dispatch"]
        if let full {
            for name in full {
                // The module is the first identifier of a plain function's full name (`Shapes.f(…)`).
                let head = name.utf8.prefix { $0 != UInt8(ascii: ".") && $0 != 0x20 && $0 != UInt8(ascii: "(") && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: "[") }
                if head.count < name.utf8.count, name.utf8[head.endIndex] == UInt8(ascii: ".") { modules.insert(String(Substring(head))) }
            }
        }
        var result: [String: String] = [:]
        result.reserveCapacity(unique.count)
        for (i, mangled) in unique.enumerated() {
            var display = simplified[i]
            if display == symbols[i] { result[mangled] = mangled; continue }
            if let full, full.count == unique.count, !isClosure(display),
               display.hasSuffix(")"), let returnType = returnType(of: full[i]) {
                display += " -> " + stripModules(returnType, modules: modules)
            }
            result[mangled] = display
        }
        return result
    }

    /// `swift-demangle` output as lines, split on bytes (much faster than splitting a String by Character).
    static func lines(_ data: Data, expected: Int) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(expected)
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            for i in 0..<bytes.count where bytes[i] == 0x0A {
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
                start = i + 1
            }
            if start < bytes.count { lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)) }
        }
        return lines
    }

    /// The mangled symbol inside a profile name (`file.swift:$s…` or `file;$s…` forms included).
    public static func symbol(in name: String) -> String {
        let utf8 = name.utf8
        if utf8.first == UInt8(ascii: "$") { return name }
        // `file.swift:$s…` / `file;$s…`: the symbol starts at the first `$`.
        guard let dollar = utf8.firstIndex(of: UInt8(ascii: "$")) else { return name }
        return String(name[dollar...])
    }

    /// True for closures and autoclosures, by demangled name or mangled suffix.
    public static func isClosure(_ name: String) -> Bool {
        name.hasPrefix("closure #") || name.hasPrefix("implicit closure #")
    }

    /// True if a mangled name ends in a closure marker (`fU_`, `fu0_`, …).
    public static func isMangledClosure(_ mangled: String) -> Bool {
        // Reads backwards: `_`, optional digits, then `U` or `u`, then `f`.
        var utf8 = mangled.utf8[...]
        guard utf8.popLast() == UInt8(ascii: "_") else { return false }
        while let last = utf8.last, last >= 0x30 && last <= 0x39 { utf8.removeLast() }
        guard let kind = utf8.popLast(), kind == UInt8(ascii: "U") || kind == UInt8(ascii: "u") else { return false }
        return utf8.popLast() == UInt8(ascii: "f")
    }

    /// The text after the last top-level ` -> ` of a full demangled function name.
    static func returnType(of full: String) -> String? {
        let bytes = Array(full.utf8)
        var depth = 0
        var start: Int? = nil
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">"):
                if i == 0 || bytes[i - 1] != UInt8(ascii: "-") { depth -= 1 }
            case UInt8(ascii: "-"):
                if depth == 0, i > 0, i + 2 < bytes.count, bytes[i - 1] == 0x20, bytes[i + 1] == UInt8(ascii: ">") { start = i + 3 }
            default: break
            }
            i += 1
        }
        guard let start, start < bytes.count else { return nil }
        let type = String(decoding: bytes[start...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return type.isEmpty ? nil : type
    }

    /// Removes `Module.` qualifiers of known modules from a type.
    static func stripModules(_ type: String, modules: Set<String>) -> String {
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
            out.append(contentsOf: token)
            if i < bytes.count { out.append(bytes[i]) }
            i += 1
            tokenStart = i
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A finished process's result, handed between threads.
final class ResultBox: @unchecked Sendable { var result: ProcessResult? }

/// Names fed to two running `swift-demangle` processes as they become known; `finish()` returns the
/// display names (mangled names when the tool is missing or fails).
public final class DemangleSession: @unchecked Sendable {
    private var unique: [String] = []
    private var symbols: [String] = []
    private var seen = Set<String>()
    private let simplified: IncrementalProcess?
    private let full: IncrementalProcess?

    init(tool: URL?) {
        simplified = tool.flatMap { try? IncrementalProcess($0, ["--simplified"]) }
        full = simplified == nil ? nil : tool.flatMap { try? IncrementalProcess($0, []) }
    }

    public func add(_ mangled: String) {
        guard seen.insert(mangled).inserted else { return }
        let symbol = SwiftDemangler.symbol(in: mangled)
        unique.append(mangled)
        symbols.append(symbol)
        var line = Array(symbol.utf8)
        line.append(0x0A)
        simplified?.write(line)
        full?.write(line)
    }

    public func finish() -> [String: String] {
        guard let simplified else { return Dictionary(uniqueKeysWithValues: unique.map { ($0, $0) }) }
        let fullBox = ResultBox()
        let fullTask = full.map { process in BlockingTask { fullBox.result = process.finish() } }
        let simplifiedResult = simplified.finish()
        fullTask?.wait()
        let simplifiedLines = simplifiedResult.succeeded ? SwiftDemangler.lines(simplifiedResult.stdout, expected: unique.count) : nil
        let fullLines = fullBox.result.flatMap { $0.succeeded ? SwiftDemangler.lines($0.stdout, expected: unique.count) : nil }
        return SwiftDemangler.displayNames(unique: unique, symbols: symbols, simplified: simplifiedLines, full: fullLines)
    }
}
