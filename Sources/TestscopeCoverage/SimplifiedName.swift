#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The simplified demangled name (`swift-demangle --simplified`) of a plain function or accessor,
/// read off its full demangled name, so that such a name is demangled once instead of twice (each
/// libswiftDemangle call parses the symbol again; the two were a fifth of a JSON report's CPU on the
/// 800-file package).
///
/// Only shapes where the two forms differ in a known way are read: `[static ]Module.Path.name(args)`
/// (the name possibly with a generic signature, of which the simplified form keeps the parameters)
/// followed by nothing or by ` -> `, ` throws -> `, ` async -> `, ` async throws -> `, and
/// `[static ]Module.Path.accessor : Type`; the simplified form drops the module and keeps only the
/// argument labels (`_:` for an unlabelled one). Anything else — local contexts (` in `), operators,
/// extensions, thunks, arguments with a non-ASCII byte, `` ` `` or `$` — gives nil and the library is
/// asked. On 143,155 symbols of five mirror packages' test binaries and the synthetic package, 44,721
/// were read this way and every one equalled the library's simplified form (`DemanglerLibraryTests`
/// checks it on the recorded samples).
enum SimplifiedName {
    static func derived(fromFull full: UnsafeBufferPointer<UInt8>) -> String? {
        withDerived(fromFull: full) { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` called with the simplified name's bytes; nil (and `body` not called) when the shape is not read.
    static func withDerived<R>(fromFull full: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        withDerived(fromFull: full) { name, _ in body(name) }
    }

    /// The same, `body` also given where the name's suffix starts (the argument list's end, or the
    /// ` : ` of an accessor): nothing before it is at the top level but identifiers, so the return
    /// type is found from there.
    static func withDerived<R>(fromFull full: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, _ suffix: Int) -> R) -> R? {
        guard !containsIn(full) else { return nil }
        // Written into a stack buffer and handed over once (an array, the commas' arrays and
        // the string were four allocations per name). The simplified form is never more than a
        // few bytes longer than the full one (`(A)` → `(_:)`); a longer one is left to the library.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: full.count + 16) { out -> R? in
            var n = 0
            var overflow = false
            func put(_ byte: UInt8) {
                guard n < out.count else { overflow = true; return }
                out[n] = byte
                n += 1
            }
            // Ranges copied whole (a byte at a time they were most of this function's 31 M
            // instructions at 400 files).
            func put(_ range: Range<Int>) {
                guard !range.isEmpty else { return }
                guard n + range.count <= out.count else { overflow = true; return }
                UnsafeMutableRawPointer(out.baseAddress! + n).copyMemory(from: full.baseAddress! + range.lowerBound, byteCount: range.count)
                n += range.count
            }
            var i = 0
            if starts(full, at: 0, with: "static ") {
                put(0..<7)
                i = 7
            }
            // The module, then at least one more identifier.
            guard let moduleEnd = identifierEnd(full, from: i), moduleEnd < full.count, full[moduleEnd] == UInt8(ascii: ".") else { return nil }
            i = moduleEnd + 1
            guard var end = identifierEnd(full, from: i) else { return nil }
            put(i..<end)
            while end < full.count, full[end] == UInt8(ascii: "."), let next = identifierEnd(full, from: end + 1) {
                put(end..<next)
                end = next
            }
            if starts(full, at: end, with: " : ") {
                return overflow ? nil : body(UnsafeBufferPointer(rebasing: out[0..<n]), end)
            }
            // A generic signature: the simplified form keeps its parameters, not its requirements
            // (`f<A, B where A: P>` → `f<A, B>`).
            if end < full.count, full[end] == UInt8(ascii: "<") {
                guard let close = closing(full, from: end, commas: { _ in }), let params = genericParameters(full, open: end, close: close) else { return nil }
                put(UInt8(ascii: "<"))
                put(params)
                put(UInt8(ascii: ">"))
                end = close + 1
            }
            guard end < full.count, full[end] == UInt8(ascii: "(") else { return nil }
            // The argument list: its closing parenthesis; each argument's label (at a top-level comma and at the end).
            var start = end + 1
            func label(upTo boundary: Int) {
                var first = start
                while first < boundary, full[first] == 0x20 { first += 1 }
                if let labelEnd = identifierEnd(full, from: first), starts(full, at: labelEnd, with: ": ") {
                    put(first..<labelEnd)
                } else {
                    put(UInt8(ascii: "_"))
                }
                put(UInt8(ascii: ":"))
                start = boundary + 1
            }
            put(UInt8(ascii: "("))
            guard let close = closing(full, from: end, commas: { label(upTo: $0) }) else { return nil }
            let after = close + 1
            guard after == full.count || starts(full, at: after, with: " -> ") || starts(full, at: after, with: " throws -> ")
                || starts(full, at: after, with: " async -> ") || starts(full, at: after, with: " async throws -> ")
            else { return nil }
            // Labels that are not plain ASCII identifiers (`π:`, `café:`, `` `a b`: ``, `a$:`) are left to the library.
            for index in (end + 1)..<close where full[index] >= 0x80 || full[index] == UInt8(ascii: "`") || full[index] == UInt8(ascii: "$") {
                return nil
            }
            if close > end + 1 { label(upTo: close) }
            put(UInt8(ascii: ")"))
            return overflow ? nil : body(UnsafeBufferPointer(rebasing: out[0..<n]), after)
        }
    }

    /// The bracket closing the one at `open`, counting `(`, `<`, `[` in and `)`, `]`, `>` (not of `->`)
    /// out; `comma` is called with each comma directly inside it, in order.
    private static func closing(_ bytes: UnsafeBufferPointer<UInt8>, from open: Int, commas comma: (Int) -> Void) -> Int? {
        var depth = 0
        for index in open..<bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">"): if index > 0, bytes[index - 1] != UInt8(ascii: "-") { depth -= 1 }
            case UInt8(ascii: ","): if depth == 1 { comma(index) }
            default: break
            }
            if depth == 0 { return index }
        }
        return nil
    }

    /// `A, B` of `<A, B where …>` or `<A, B>`: identifiers separated by `, `, else nil.
    private static func genericParameters(_ bytes: UnsafeBufferPointer<UInt8>, open: Int, close: Int) -> Range<Int>? {
        var index = open + 1
        while true {
            guard let end = identifierEnd(bytes, from: index), end <= close else { return nil }
            if end == close || starts(bytes, at: end, with: " where ") { return (open + 1)..<end }
            guard starts(bytes, at: end, with: ", ") else { return nil }
            index = end + 2
        }
    }

    /// Where the ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`) starting at `start` ends, nil when none starts there.
    private static func identifierEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        func isLetter(_ b: UInt8) -> Bool { b == 0x5F || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) }
        guard start < bytes.count, isLetter(bytes[start]) else { return nil }
        var end = start + 1
        while end < bytes.count, isLetter(bytes[end]) || (bytes[end] >= 0x30 && bytes[end] <= 0x39) { end += 1 }
        return end
    }

    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard start + count <= bytes.count else { return false }
        let prefix = text.utf8Start
        for offset in 0..<count where bytes[start + offset] != prefix[offset] { return false }
        return true
    }

    /// Whether ` in ` occurs (a local context: `… in Outer.f()`).
    private static func containsIn(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 4, let base = bytes.baseAddress else { return false }
        // From space to space with memchr (names have few).
        var index = 0
        while index <= bytes.count - 4, let hit = memchr(base + index, 0x20, bytes.count - 3 - index) {
            let space = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if bytes[space + 1] == UInt8(ascii: "i") && bytes[space + 2] == UInt8(ascii: "n") && bytes[space + 3] == 0x20 { return true }
            index = space + 1
        }
        return false
    }
}
