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
        let indices = names.map { session.add($0) }
        let demangled = session.finish()
        return Dictionary(zip(names, indices).map { ($0, demangled.displayName(at: $1, mangled: $0)) },
                          uniquingKeysWith: { a, _ in a })
    }

    /// A session that demangles names as they are added (while an export is still being read).
    public func session() -> DemangleSession { DemangleSession(tool: tool) }

    /// Modules whose names are stripped from return types even when no function of theirs is seen.
    static let knownModules: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "_Concurrency", "XCTest", "Testing", "Dispatch"]

    /// Functions get their return type; closures (whose simplified name has none) do not.
    static func takesReturnType(_ simplified: String) -> Bool { !isClosure(simplified) && simplified.hasSuffix(")") }

    /// The display name from the simplified name and the full name's return type, with the
    /// qualifiers of `modules` stripped from the type (both ways of demangling end here).
    static func displayName(simplified: String, returnType: String?, modules: ModuleNames) -> String {
        guard var returnType, takesReturnType(simplified) else { return simplified }
        var simplified = simplified
        // Written once into one buffer (the concatenation and the stripping's array and strings were
        // five allocations a function, 5 % of a JSON report's instructions).
        return simplified.withUTF8 { name in
            returnType.withUTF8 { type in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + 4 + type.count) { out in
                    var n = 0
                    for b in name { out[n] = b; n += 1 }
                    for b in " -> ".utf8 { out[n] = b; n += 1 }
                    n = stripModules(type, modules: modules, into: out, at: n)
                    return String(decoding: UnsafeBufferPointer(rebasing: out[0..<n]), as: UTF8.self)
                }
            }
        }
    }

    /// The same from bytes, appended to `out` (the in-process session's chunks: no `String` on the way).
    static func appendDisplayName(simplified name: UnsafeBufferPointer<UInt8>, returnType type: UnsafeBufferPointer<UInt8>?,
                                  modules: ModuleNames, to out: inout [UInt8]) {
        guard let type, takesReturnType(name) else { return out.append(contentsOf: name) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + 4 + type.count) { buffer in
            var n = 0
            for b in name { buffer[n] = b; n += 1 }
            for b in " -> ".utf8 { buffer[n] = b; n += 1 }
            n = stripModules(type, modules: modules, into: buffer, at: n)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// `takesReturnType` on bytes (the prefixes and the suffix are ASCII).
    static func takesReturnType(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        func hasPrefix(_ prefix: StaticString) -> Bool {
            prefix.utf8CodeUnitCount <= name.count
                && UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount).elementsEqual(name.prefix(prefix.utf8CodeUnitCount))
        }
        return name.last == UInt8(ascii: ")") && !hasPrefix("closure #") && !hasPrefix("implicit closure #")
    }

    /// Module names, compared as bytes (a `Set<String>` lookup made a `String` of every token).
    struct ModuleNames: Sendable {
        private let names: [[UInt8]]
        init(_ modules: Set<String>) { names = modules.map { Array($0.utf8) } }

        func contains(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
            names.contains { $0.count == token.count && $0.elementsEqual(token) }
        }
    }

    /// From one line of the full form: the module of a plain function (the first identifier of
    /// `Shapes.f(…)`) and the return type.
    static func fullNameFacts(_ line: UnsafeBufferPointer<UInt8>) -> (module: String?, returnType: String?) {
        func text(_ range: Range<Int>?) -> String? { range.map { String(decoding: UnsafeBufferPointer(rebasing: line[$0]), as: UTF8.self) } }
        return (text(moduleRange(of: line)), text(returnTypeRange(of: line)))
    }

    /// Where the module of a plain function's full name is (`Shapes` of `Shapes.f(…)`).
    static func moduleRange(of line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var end = 0
        while end < line.count {
            let b = line[end]
            if b == UInt8(ascii: ".") || b == 0x20 || b == UInt8(ascii: "(") || b == UInt8(ascii: "<") || b == UInt8(ascii: "[") { break }
            end += 1
        }
        return end < line.count && line[end] == UInt8(ascii: ".") && end > 0 ? 0..<end : nil
    }

    /// The mangled symbol inside a profile name (`file.swift:$s…` or `file;$s…` forms included).
    public static func symbol(in name: String) -> String {
        let start = ByteString.withBytes(name) { symbolStart(in: $0) }
        return start == 0 ? name : String(decoding: name.utf8.dropFirst(start), as: UTF8.self)
    }

    /// The same on a profile name's bytes, in place.
    static func symbol(in name: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: name[symbolStart(in: name)...])
    }

    /// Where the mangled symbol starts in a profile name's bytes.
    static func symbolStart(in name: UnsafeBufferPointer<UInt8>) -> Int {
        guard let first = name.first, first != UInt8(ascii: "$") else { return 0 }
        // `file.swift:$s…` / `file;$s…`: the symbol starts at the first `$`.
        return name.firstIndex(of: UInt8(ascii: "$")) ?? 0
    }

    /// True for closures and autoclosures, by demangled name or mangled suffix.
    public static func isClosure(_ name: String) -> Bool {
        // Over the bytes: a mangled symbol (the native engine's names, `$s…`) is told by its first byte;
        // two `hasPrefix` per function were 5.8 M instructions of a text report at 400 files. A
        // non-ASCII byte after the prefix (a combining mark would join the `#`) goes to `hasPrefix`.
        let prefixed = ByteString.withBytes(name) { bytes -> Bool? in
            guard let first = bytes.first, first == UInt8(ascii: "c") || first == UInt8(ascii: "i") else { return false }
            for prefix in [closurePrefix, implicitClosurePrefix] where bytes.starts(with: prefix) {
                return bytes.count > prefix.count && bytes[prefix.count] >= 0x80 ? nil : true
            }
            return false
        }
        return prefixed ?? (name.hasPrefix("closure #") || name.hasPrefix("implicit closure #"))
    }

    private static let closurePrefix = Array("closure #".utf8)
    private static let implicitClosurePrefix = Array("implicit closure #".utf8)

    /// True if a mangled name ends in a closure marker (`fU_`, `fu0_`, …).
    public static func isMangledClosure(_ mangled: String) -> Bool {
        // Reads backwards: `_`, optional digits, then `U` or `u`, then `f` (over the bytes in
        // place: a `Substring.UTF8View` popped from the end cost retains per record).
        ByteString.withBytes(mangled) { utf8 in
            var end = utf8.count
            guard end > 0, utf8[end - 1] == UInt8(ascii: "_") else { return false }
            end -= 1
            while end > 0, utf8[end - 1] >= 0x30 && utf8[end - 1] <= 0x39 { end -= 1 }
            guard end >= 2, utf8[end - 1] == UInt8(ascii: "U") || utf8[end - 1] == UInt8(ascii: "u") else { return false }
            return utf8[end - 2] == UInt8(ascii: "f")
        }
    }

    /// The text after the last top-level ` -> ` of a full demangled function name.
    static func returnType(of full: String) -> String? {
        var full = full
        return full.withUTF8 { returnType(of: $0) }
    }

    /// The same on the line's bytes (one pass, no copy: every function's full name goes through it,
    /// and copying each line twice was 7 % of a JSON report's samples on the 400-file package).
    static func returnType(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
        returnTypeRange(of: bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
    }

    /// Where the return type is in a full demangled name; `from`: where to look from (no top-level
    /// ` -> ` before it).
    static func returnTypeRange(of bytes: UnsafeBufferPointer<UInt8>, from: Int = 0) -> Range<Int>? {
        var depth = 0
        var start: Int? = nil
        var i = from
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
        // Trimmed of spaces and tabs, as `trimmingCharacters(in: .whitespaces)` did for this ASCII output.
        guard var first = start else { return nil }
        var last = bytes.count
        while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
        while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
        guard first < last else { return nil }
        return first..<last
    }

    /// Writes `type` into `out` from `start` (which has room for it) without the `Module.` qualifiers
    /// of `modules`; returns the end.
    static func stripModules(_ type: UnsafeBufferPointer<UInt8>, modules: ModuleNames, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var n = start
        var tokenStart = 0
        var i = 0
        func isIdentifier(_ b: UInt8) -> Bool { b >= 0x80 || b == 0x5F || (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) }
        while i <= type.count {
            if i < type.count, isIdentifier(type[i]) { i += 1; continue }
            let token = UnsafeBufferPointer(rebasing: type[tokenStart..<i])
            if i < type.count, type[i] == UInt8(ascii: "."), !token.isEmpty, modules.contains(token) {
                i += 1
                tokenStart = i
                continue
            }
            for b in token { out[n] = b; n += 1 }
            if i < type.count { out[n] = type[i]; n += 1 }
            i += 1
            tokenStart = i
        }
        return n
    }
}

/// Names demangled in process by the toolchain's library when it has one (`DemanglerLibrary`), else
/// fed to two running `swift-demangle` processes as they become known, their output consumed line by
/// line as it arrives (only what the display names need is kept); `finish()` returns the display
/// names (mangled names when the tool is missing or fails).
public final class DemangleSession: Sendable {
    private let added = Locked(0)
    /// The library's way, when the toolchain has it (then no processes are started).
    private let inProcess: InProcessDemangling?
    /// Names (one a line) not yet handed to the writers.
    private let queued = Locked<[UInt8]>([])
    private let simplifiedWriter = DispatchQueue(label: "testscope.demangle.simplified")
    private let fullWriter = DispatchQueue(label: "testscope.demangle.full")
    private let simplified: IncrementalProcess?
    private let full: IncrementalProcess?
    private let simplifiedLines: LineSplitter
    private let fullLines: LineSplitter
    private let tool: URL?
    /// What each output left, filled by its process's reader thread.
    private let simplifiedNames = Locked<[String]>([])
    private let fullFacts = Locked<(returnTypes: [String?], modules: Set<String>)>(([], SwiftDemangler.knownModules))

    /// `inProcess: false` keeps the processes even where the library exists (to compare both ways).
    init(tool: URL?, inProcess: Bool = true) {
        let simplifiedNames = self.simplifiedNames, fullFacts = self.fullFacts
        let simplifiedLines = LineSplitter { line in
            let name = String(decoding: line, as: UTF8.self)
            simplifiedNames.withLock { $0.append(name) }
        }
        let fullLines = LineSplitter { line in
            let facts = SwiftDemangler.fullNameFacts(line)
            fullFacts.withLock {
                if let module = facts.module { $0.modules.insert(module) }
                $0.returnTypes.append(facts.returnType)
            }
        }
        self.simplifiedLines = simplifiedLines
        self.fullLines = fullLines
        self.tool = tool
        self.inProcess = inProcess ? tool.flatMap { DemanglerLibrary.beside(tool: $0) }.map(InProcessDemangling.init) : nil
        guard self.inProcess == nil else {
            simplified = nil
            full = nil
            return
        }
        simplified = tool.flatMap { try? IncrementalProcess($0, ["--simplified"], onStdout: simplifiedLines.feed) }
        full = simplified == nil ? nil : tool.flatMap { try? IncrementalProcess($0, [], onStdout: fullLines.feed) }
    }

    /// Queues a name; its display name will be at the returned index of `finish()`'s result. The
    /// names are not kept here (the caller has them), and a name added twice is demangled twice.
    /// The caller never waits for the processes: names are gathered here and handed in large pieces
    /// to one writer thread per process (a pipe write blocks while its process is behind).
    @discardableResult
    public func add(_ mangled: String) -> Int32 {
        ByteString.withBytes(mangled) { add(symbol: SwiftDemangler.symbol(in: $0)) }
    }

    /// The same for a name's bytes as a names section holds them (no `String` made for it: one each
    /// was 50 M instructions at 400 files). Bytes that are not ASCII go through a `String`, which
    /// repairs them as the other way does.
    @discardableResult
    public func add(bytes mangled: UnsafeBufferPointer<UInt8>) -> Int32 {
        Self.withSymbol(mangled) { add(symbol: $0) }
    }

    /// Adds `count` names at once and returns the index of the first (name `k` is at that plus `k`).
    /// `names(range, body)` hands the bytes of the names in `range` to `body`, in order, as
    /// `add(bytes:)` takes them; with the library, on its workers, a chunk at a time: one after the
    /// other on the caller's thread, with a lock each, the names of the 400-file package were 67 M
    /// instructions before any file was built.
    public func add(count: Int, names: @escaping @Sendable (Range<Int>, (UnsafeBufferPointer<UInt8>) -> Void) -> Void) -> Int32 {
        guard let inProcess else {
            let first = added.withLock { $0 }
            names(0..<count) { _ = add(bytes: $0) }
            return Int32(first)
        }
        return inProcess.add(count: count) { range, body in names(range) { Self.withSymbol($0, body) } }
    }

    /// `body` given a name's symbol as the demanglers take it: bytes that are not ASCII repaired
    /// through a `String` (as a name added as a `String` is), a local symbol's file prefix dropped.
    private static func withSymbol<R>(_ mangled: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard !mangled.contains(where: { $0 >= 0x80 }) else {
            return ByteString.withBytes(String(decoding: mangled, as: UTF8.self)) { body(SwiftDemangler.symbol(in: $0)) }
        }
        return body(SwiftDemangler.symbol(in: mangled))
    }

    private func add(symbol: UnsafeBufferPointer<UInt8>) -> Int32 {
        if let inProcess { return inProcess.add(symbol) }
        guard simplified != nil else {
            return added.withLock { count in defer { count += 1 }; return Int32(count) }
        }
        let (index, chunk) = added.withLock { count -> (Int32, [UInt8]?) in
            defer { count += 1 }
            return (Int32(count), queued.withLock { queued in
                queued.append(contentsOf: symbol)
                queued.append(0x0A)
                guard queued.count >= 1 << 16 else { return nil }
                defer { queued = [] }
                return queued
            })
        }
        if let chunk { hand(chunk) }
        return index
    }

    private func hand(_ chunk: [UInt8]) {
        if let simplified { simplifiedWriter.async { simplified.write(chunk) } }
        if let full { fullWriter.async { full.write(chunk) } }
    }

    /// Why the names added stay mangled, when no demangler could be used: without it, a report with
    /// every function as `$s6Shapes4area…` said nothing of why (no toolchain on `PATH`).
    public var fallbackWarning: Diagnostic? {
        guard inProcess == nil, simplified == nil, added.withLock({ $0 }) > 0 else { return nil }
        let why = tool.map { "\($0.path) could not be started" } ?? "no Swift toolchain was found to demangle them (its swift-demangle)"
        return .warning("function names are shown mangled: \(why); put the toolchain's swift on PATH or set TESTSCOPE_SWIFT to it")
    }

    public func finish() -> DemangledNames {
        if let inProcess { return inProcess.finish() }
        guard let simplified else { return DemangledNames(display: []) }
        let rest = queued.withLock { queued in defer { queued = [] }; return queued }
        if !rest.isEmpty { hand(rest) }
        simplifiedWriter.sync {}
        fullWriter.sync {}
        let fullResult = Locked<ProcessResult?>(nil)
        let fullTask = full.map { process in BlockingTask { let result = process.finish(); fullResult.withLock { $0 = result } } }
        let simplifiedResult = simplified.finish()
        fullTask?.wait()
        simplifiedLines.end()
        fullLines.end()
        let added = self.added.withLock { $0 }
        // Display names replace the simplified ones in place: the two lists never coexist.
        var display = simplifiedNames.withLock { names in defer { names = [] }; return names }
        guard simplifiedResult.succeeded, display.count == added else { return DemangledNames(display: []) }
        let fullSucceeded = fullResult.withLock { $0?.succeeded ?? false }
        let facts = fullFacts.withLock { facts in defer { facts.returnTypes = [] }; return facts }
        let returnTypes = fullSucceeded && facts.returnTypes.count == added ? facts.returnTypes : nil
        let modules = SwiftDemangler.ModuleNames(facts.modules)
        for i in display.indices {
            display[i] = SwiftDemangler.displayName(simplified: display[i], returnType: returnTypes?[i], modules: modules)
        }
        return DemangledNames(display: display)
    }
}

/// The display names of one demangling session, by the index `add` returned.
public struct DemangledNames: Sendable {
    /// The names in chunks of `chunkSize` (the last one shorter), as the in-process session made
    /// them: never copied into one array (that copy and its growth were 6 MB of the peak at 800
    /// files), each chunk's names in one buffer (a `String` each was 5 MB held through the report).
    private let chunks: [CompactNames]
    private let chunkSize: Int

    init(display: [String]) {
        var names = CompactNames()
        for name in display { names.append(name) }
        chunks = [names]
        chunkSize = max(1, display.count)
    }

    init(chunks: [CompactNames], chunkSize: Int) {
        self.chunks = chunks
        self.chunkSize = chunkSize
    }

    /// The display name of the name added at `index`: the mangled name itself when demangling
    /// failed or changed nothing.
    public func displayName(at index: Int32, mangled: String) -> String {
        guard index >= 0 else { return mangled }
        let (chunk, offset) = Int(index).quotientAndRemainder(dividingBy: chunkSize)
        // The chunk reached in place: a copy of it (twice per name) retained and released its two
        // buffers, shared by every core (1.6 % of an LCOV report's CPU at 400 files, `perf`).
        return chunks.withUnsafeBufferPointer { chunks in
            guard chunk < chunks.count, offset < chunks[chunk].count else { return mangled }
            return chunks[chunk].displayName(offset, mangled: mangled)
        }
    }

    public var isEmpty: Bool { chunks.allSatisfy { $0.count == 0 } }
}

/// Names kept as one UTF-8 buffer and their ends; a name becomes a `String` when it is read.
struct CompactNames: Sendable {
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    var count: Int { ends.count }

    mutating func append(_ name: String) {
        bytes.append(contentsOf: name.utf8)
        ends.append(UInt32(truncatingIfNeeded: bytes.count))
    }

    mutating func append(bytes name: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: name)
        ends.append(UInt32(truncatingIfNeeded: bytes.count))
    }

    /// Appends the name `write` appends to the buffer.
    mutating func append(writing write: (inout [UInt8]) -> Void) {
        write(&bytes)
        ends.append(UInt32(truncatingIfNeeded: bytes.count))
    }

    /// Name `index`, or `mangled` itself when the name is the symbol in `mangled` (the demanglers
    /// left it as it was). Compared as bytes: a `String` of the symbol and a `String` comparison
    /// per function were 2 % of an LCOV report's reference counting.
    func displayName(_ index: Int, mangled: String) -> String {
        let start = index == 0 ? 0 : Int(ends[index - 1])
        let end = Int(ends[index])
        return bytes.withUnsafeBufferPointer { all in
            let name = UnsafeBufferPointer(rebasing: all[start..<end])
            let same = ByteString.withBytes(mangled) { mangled in
                let symbol = SwiftDemangler.symbol(in: mangled)
                return symbol.count == name.count && (name.isEmpty || memcmp(symbol.baseAddress!, name.baseAddress!, name.count) == 0)
            }
            return same ? mangled : String(decoding: name, as: UTF8.self)
        }
    }

    /// Name `index`'s bytes, in place.
    func withBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let start = index == 0 ? 0 : Int(ends[index - 1])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<Int(ends[index])])) }
    }

    /// The buffers cut to their size (they are kept for the whole report).
    mutating func trim() {
        bytes = bytes.withUnsafeBufferPointer { Array($0) }
        ends = ends.withUnsafeBufferPointer { Array($0) }
    }

    subscript(index: Int) -> String {
        let start = index == 0 ? 0 : Int(ends[index - 1])
        return String(decoding: bytes[start..<Int(ends[index])], as: UTF8.self)
    }
}

/// Splits a byte stream that arrives in pieces into lines.
final class LineSplitter: Sendable {
    /// The unfinished last line; one reader thread feeds a splitter, the lock only makes that checkable.
    private let partialLine = Locked<[UInt8]>([])
    private let onLine: @Sendable (UnsafeBufferPointer<UInt8>) -> Void

    init(onLine: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void) { self.onLine = onLine }

    @Sendable func feed(_ data: Data) {
        partialLine.withLock { partial in split(data, partial: &partial) }
    }

    private func split(_ data: Data, partial: inout [UInt8]) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            for i in 0..<bytes.count where bytes[i] == 0x0A {
                if partial.isEmpty {
                    onLine(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                } else {
                    partial.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                    partial.withUnsafeBufferPointer(onLine)
                    partial.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            partial.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// The last line, when the stream did not end with a newline.
    func end() {
        partialLine.withLock { partial in
            if !partial.isEmpty { partial.withUnsafeBufferPointer(onLine) }
            partial = []
        }
    }
}

