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

    /// Builds display names from the two `swift-demangle` passes over `unique` (same order): their
    /// output is read in place, line by line, so only the display names become strings.
    static func displayNames(unique: [String], simplified: Data?, full: Data?) -> [String: String] {
        guard let simplified, let simplifiedLines = OutputLines(simplified, expected: unique.count) else {
            return Dictionary(uniqueKeysWithValues: unique.map { ($0, $0) })
        }
        let fullLines = full.flatMap { OutputLines($0, expected: unique.count) }
        var modules: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "_Concurrency", "XCTest", "Testing", "Dispatch"]
        if let full, let fullLines {
            full.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                for range in fullLines.ranges {
                    // The module is the first identifier of a plain function's full name (`Shapes.f(…)`).
                    var end = range.lowerBound
                    while end < range.upperBound, ![UInt8(ascii: "."), 0x20, UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "[")].contains(bytes[end]) {
                        end += 1
                    }
                    if end < range.upperBound, bytes[end] == UInt8(ascii: "."), end > range.lowerBound {
                        modules.insert(String(decoding: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<end]), as: UTF8.self))
                    }
                }
            }
        }
        var result: [String: String] = [:]
        result.reserveCapacity(unique.count)
        for (i, mangled) in unique.enumerated() {
            if simplifiedLines.line(i, of: simplified, equals: Self.symbol(in: mangled)) { result[mangled] = mangled; continue }
            var display = simplifiedLines.string(i, of: simplified)
            if let full, let fullLines, !isClosure(display), display.hasSuffix(")"),
               let returnType = returnType(of: fullLines.string(i, of: full)) {
                display += " -> " + stripModules(returnType, modules: modules)
            }
            result[mangled] = display
        }
        return result
    }

    /// Builds display names from the two passes already split into lines (tests, small inputs).
    static func displayNames(unique: [String], simplified: [String]?, full: [String]?) -> [String: String] {
        func data(_ lines: [String]?) -> Data? { lines.map { Data($0.map { $0 + "\n" }.joined().utf8) } }
        return displayNames(unique: unique, simplified: data(simplified), full: data(full))
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
        return SwiftDemangler.displayNames(
            unique: unique, simplified: simplifiedResult.succeeded ? simplifiedResult.stdout : nil,
            full: fullBox.result.flatMap { $0.succeeded ? $0.stdout : nil })
    }
}

/// The lines of a `swift-demangle` output as byte ranges (the output is not copied).
struct OutputLines {
    let ranges: [Range<Int>]

    /// Nil unless the output has exactly `expected` lines.
    init?(_ data: Data, expected: Int) {
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(expected)
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            for i in 0..<bytes.count where bytes[i] == 0x0A {
                ranges.append(start..<i)
                start = i + 1
            }
            if start < bytes.count { ranges.append(start..<bytes.count) }
        }
        guard ranges.count == expected else { return nil }
        self.ranges = ranges
    }

    func string(_ index: Int, of data: Data) -> String {
        data.withUnsafeBytes { raw in
            String(decoding: UnsafeRawBufferPointer(rebasing: raw[ranges[index]]), as: UTF8.self)
        }
    }

    func line(_ index: Int, of data: Data, equals text: String) -> Bool {
        data.withUnsafeBytes { raw in raw[ranges[index]].elementsEqual(text.utf8) }
    }
}
