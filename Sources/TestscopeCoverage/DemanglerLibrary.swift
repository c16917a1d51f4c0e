import Foundation
import TestscopeExecution
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The toolchain's demangler library (`libswiftDemangle`, in the `lib` folder beside the `bin` that
/// holds `swift-demangle`), called in process: the same demangler and the same options as
/// `swift-demangle` and `swift-demangle --simplified`, without two processes reading names a
/// character at a time from a pipe (those processes were 23 % of a JSON report's CPU samples on the
/// 400-file package, a third of it in their stdin reading).
final class DemanglerLibrary: Sendable {
    /// `size_t f(const char *mangled, char *buffer, size_t length)`: the length of the demangled name
    /// (copied with `strlcpy`, so a result ≥ `length` was cut), or 0 when the name is not mangled.
    typealias Entry = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int

    /// The library's two entries, loaded at the first symbol Testscope's own demangler leaves to it.
    /// Loading it (and the `libswiftCore.so` it links) cost 3.2 MB of resident memory and 2.4 ms,
    /// and most packages' function symbols never need it (none of the synthetic packages' do).
    private let entries: Locked<Entries?>
    private let path: String

    /// C function pointers into a library that stays loaded for the life of the process.
    private struct Entries: Sendable {
        var simplified: Entry?
        var full: Entry?
    }

    private init(path: String) {
        self.path = path
        entries = Locked(nil)
    }

    /// One per library path; nil when the toolchain has no such library (then names go through
    /// `swift-demangle` processes).
    private static let known = Locked<[String: DemanglerLibrary?]>([:])

    /// `TESTSCOPE_DEMANGLER=process` keeps the `swift-demangle` processes (the tests compare both ways).
    static func beside(tool: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> DemanglerLibrary? {
        guard environment["TESTSCOPE_DEMANGLER"] != "process" else { return nil }
        #if os(macOS)
        let name = "libswiftDemangle.dylib"
        #else
        let name = "libswiftDemangle.so"
        #endif
        let path = tool.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib").appendingPathComponent(name).path
        return known.withLock { cache in
            if let known = cache[path] { return known }
            let library = FileManager.default.fileExists(atPath: path) ? DemanglerLibrary(path: path) : nil
            cache[path] = library
            return library
        }
    }

    /// The entries, the library loaded on first use. A library that exists but cannot be loaded (a
    /// broken toolchain) leaves the names outside the own demangler's shapes mangled, as
    /// `swift-demangle` prints a name it cannot demangle.
    private func loaded() -> Entries {
        entries.withLock { entries in
            if let entries { return entries }
            var loaded = Entries()
            // The handle stays open for the life of the process: the entries are called until it ends.
            if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) {
                if let simplified = dlsym(handle, "swift_demangle_getSimplifiedDemangledName"),
                   let full = dlsym(handle, "swift_demangle_getDemangledName") {
                    loaded.simplified = unsafeBitCast(simplified, to: Entry.self)
                    loaded.full = unsafeBitCast(full, to: Entry.self)
                } else {
                    dlclose(handle)
                }
            }
            entries = loaded
            return loaded
        }
    }

    /// What the two forms of `swift-demangle` tell of one symbol: the simplified name, and from the
    /// full name the module of a plain function and the return type. Testscope's own demangler
    /// answers the shapes it knows (`DemangledChunk.append(_:own:library:)`), the library the rest.
    func demangle(_ symbol: String, own: inout SymbolDemangler) -> Demangled {
        var chunk = DemangledChunk()
        chunk.append(symbol, own: &own, library: self)
        return chunk.demangled(0)
    }

    /// The same by the library alone. A name the library does not demangle is taken as it is, as
    /// `swift-demangle` prints it back. A plain function's simplified name is read off its full
    /// name (`SimplifiedName`): one library call instead of two.
    func demangledByLibrary(_ symbol: String) -> Demangled {
        // A closure's full name names no module first and its display name takes no return type:
        // only its simplified name is needed.
        if SwiftDemangler.isMangledClosure(symbol) {
            let name = simplified(symbol)
            if SwiftDemangler.isClosure(name) { return Demangled(name: name) }
            return Demangled(name: name, facts: full(symbol, deriving: false).facts)
        }
        let (facts, derived) = full(symbol, deriving: true)
        if let derived { return Demangled(name: derived, facts: facts) }
        let name = simplified(symbol)
        if SwiftDemangler.isClosure(name) { return Demangled(name: name) }
        return Demangled(name: name, facts: facts)
    }

    /// The simplified form (the symbol itself when the library does not demangle it).
    func simplified(_ symbol: String) -> String {
        call(loaded().simplified, symbol) { String(decoding: $0, as: UTF8.self) } ?? symbol
    }

    /// What the full form tells, and the simplified name read off it when `deriving` and it has a plain shape.
    func full(_ symbol: String, deriving: Bool) -> (facts: (module: String?, returnType: String?), simplified: String?) {
        if let result = call(loaded().full, symbol, { (SwiftDemangler.fullNameFacts($0), deriving ? SimplifiedName.derived(fromFull: $0) : nil) }) {
            return result
        }
        var copy = symbol
        return (copy.withUTF8 { SwiftDemangler.fullNameFacts($0) }, nil)
    }

    /// The full form as text (tests compare `SimplifiedName` with the library on it).
    func fullName(_ symbol: String) -> String? {
        call(loaded().full, symbol) { String(decoding: $0, as: UTF8.self) }
    }

    /// One symbol's simplified name and what its full name tells.
    struct Demangled: Sendable {
        var name: String
        var module: String? = nil
        var returnType: String? = nil

        init(name: String, facts: (module: String?, returnType: String?) = (nil, nil)) {
            self.name = name
            (module, returnType) = facts
        }
    }

    /// Calls `entry` with a stack buffer, and with a heap buffer of the right size when the name is longer.
    private func call<T>(_ entry: Entry?, _ symbol: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        guard let entry else { return nil }
        return symbol.withCString { name -> T? in
            let first: (length: Int, value: T?) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer in
                let length = entry(name, buffer.baseAddress, buffer.count)
                guard length > 0, length < buffer.count else { return (length, nil) }
                return (length, buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: length) { body(UnsafeBufferPointer(start: $0, count: length)) })
            }
            guard first.length >= 1024 else { return first.value }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: first.length + 1)
            defer { buffer.deallocate() }
            let length = entry(name, buffer, first.length + 1)
            guard length > 0, length <= first.length else { return nil }
            return buffer.withMemoryRebound(to: UInt8.self, capacity: length) { body(UnsafeBufferPointer(start: $0, count: length)) }
        }
    }
}

/// A demangling session on the library: names are demangled a chunk at a time on Dispatch's
/// workers while the caller goes on reading (the reading is mostly one thread, so they use the
/// other core, as the `swift-demangle` processes did; demangling everything in `finish()` instead
/// made the JSON report 14 % slower on the 400-file package).
final class InProcessDemangling: Sendable {
    private let library: DemanglerLibrary
    /// Names added so far, and those not yet handed to a worker.
    private let state = Locked<(count: Int, pending: CompactNames)>((0, CompactNames()))
    /// Demangled chunks by their first index, in the order the workers finished them.
    private let chunks = Locked<[(start: Int, names: DemangledChunk)]>([])
    /// Chunks submitted and not yet taken, oldest first: a worker takes the oldest, and `finish()`
    /// takes what is left itself instead of waiting on one core (waiting there, the caller left a
    /// core idle for 13 ms of a 400-file LCOV report, `perf sched`).
    private let jobs = Locked<(items: [Job?], next: Int)>(([], 0))
    private let group = DispatchGroup()

    private struct Job: Sendable {
        let start: Int
        let fill: @Sendable (inout CompactNames) -> Void
    }
    static let chunkSize = 1024

    init(_ library: DemanglerLibrary) { self.library = library }

    /// `symbol`'s bytes (valid UTF-8) kept in the pending chunk's one buffer.
    func add(_ symbol: UnsafeBufferPointer<UInt8>) -> Int32 {
        let (index, chunk) = state.withLock { state -> (Int, (start: Int, symbols: CompactNames)?) in
            defer { state.count += 1 }
            state.pending.append(bytes: symbol)
            guard state.pending.count >= Self.chunkSize else { return (state.count, nil) }
            defer { state.pending = CompactNames() }
            return (state.count, (state.count + 1 - state.pending.count, state.pending))
        }
        if let chunk { submit(chunk.start) { $0 = chunk.symbols } }
        return Int32(index)
    }

    /// `count` names added at once (`DemangleSession.add(count:names:)`): each whole chunk's names
    /// read by `names` on the worker that demangles them; the names before the first chunk boundary
    /// and after the last one, here.
    func add(count: Int, names: @escaping @Sendable (Range<Int>, (UnsafeBufferPointer<UInt8>) -> Void) -> Void) -> Int32 {
        let (first, pending) = state.withLock { ($0.count, $0.pending.count) }
        // Up to the boundary of the chunk already begun, one at a time (chunk j holds names j × chunkSize…).
        var k = min(count, pending == 0 ? 0 : Self.chunkSize - pending)
        names(0..<k) { _ = add($0) }
        while count - k >= Self.chunkSize {
            let start = state.withLock { state -> Int in defer { state.count += Self.chunkSize }; return state.count }
            let range = k..<k + Self.chunkSize
            submit(start) { symbols in names(range) { symbols.append(bytes: $0) } }
            k += Self.chunkSize
        }
        names(k..<count) { _ = add($0) }
        return Int32(first)
    }

    /// Demangles on a worker the chunk of names from index `start` that `fill` writes.
    private func submit(_ start: Int, _ fill: @escaping @Sendable (inout CompactNames) -> Void) {
        jobs.withLock { $0.items.append(Job(start: start, fill: fill)) }
        DispatchQueue.global().async(group: group) { [self] in _ = runOldestJob() }
    }

    /// Takes the oldest chunk not yet taken and demangles it; false when there was none.
    private func runOldestJob() -> Bool {
        let job = jobs.withLock { jobs -> Job? in
            guard jobs.next < jobs.items.count else { return nil }
            // Let go once taken (a job of names added one at a time holds their bytes).
            defer { jobs.items[jobs.next] = nil; jobs.next += 1 }
            return jobs.items[jobs.next]
        }
        guard let job else { return false }
        var symbols = CompactNames()
        job.fill(&symbols)
        var own = SymbolDemangler()
        var names = DemangledChunk()
        for i in 0..<symbols.count { symbols.withBytes(i) { names.append(bytes: $0, own: &own, library: library) } }
        names.trim()
        chunks.withLock { $0.append((job.start, names)) }
        return true
    }

    /// The display names: the simplified name, plus ` -> ` and the return type (its known modules
    /// stripped) for functions.
    func finish() -> DemangledNames {
        let rest = state.withLock { state in defer { state.pending = CompactNames() }; return (start: state.count - state.pending.count, symbols: state.pending) }
        if rest.symbols.count > 0 { submit(rest.start) { $0 = rest.symbols } }
        while runOldestJob() {}
        group.wait()
        // Chunk k holds names k × chunkSize… (a chunk is submitted each time chunkSize names were added).
        var sorted = chunks.withLock { chunks in defer { chunks = [] }; return chunks }.sorted { $0.start < $1.start }
        var modules = SwiftDemangler.knownModules
        for chunk in sorted { modules.formUnion(chunk.names.modules) }
        let moduleNames = SwiftDemangler.ModuleNames(modules)
        // On every core (the model waits for the names), each chunk's demangled forms let go as soon
        // as its display names are made: both sets at once were the report's peak of memory.
        let pending = PendingChunks(sorted.map(\.names))
        sorted = []
        let display = Parallel.map(pending.count) { k in
            let chunk = pending.take(k)
            var names = CompactNames()
            for i in 0..<chunk.count {
                names.append { out in chunk.displayName(i, modules: moduleNames, to: &out) }
            }
            names.trim()
            return names
        }
        return DemangledNames(chunks: display, chunkSize: Self.chunkSize)
    }

    /// Chunks each taken once, by the one iteration of `Parallel.map` that owns its slot.
    private final class PendingChunks: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<DemangledChunk?>
        init(_ chunks: [DemangledChunk]) {
            slots = .allocate(capacity: chunks.count)
            _ = slots.initialize(from: chunks.map { $0 })
        }
        deinit {
            slots.deinitialize()
            slots.deallocate()
        }
        var count: Int { slots.count }
        func take(_ k: Int) -> DemangledChunk {
            defer { slots[k] = nil }
            return slots[k] ?? DemangledChunk()
        }
    }
}

/// A chunk of demangled names as bytes: held from the first name read until the display names are
/// made, a `String` or two each were 7 MB of the peak at 800 files.
struct DemangledChunk: Sendable {
    private var names = CompactNames()
    private var returnTypes = CompactNames()
    private var hasReturnType: [Bool] = []
    /// The modules of the plain functions' full names.
    private(set) var modules: Set<String> = []
    /// The module last added to `modules` (most names in a row share it: one comparison, not a hash).
    private var lastModule: [UInt8] = []

    var count: Int { names.count }

    /// `symbol` demangled and appended: by the own demangler where it answers, else by the library.
    /// A plain function's names go from the own demangler's full name into the chunk as bytes (three
    /// `String`s and a set insertion a name on the way were 2 % of a JSON report's instructions).
    mutating func append(_ symbol: String, own: inout SymbolDemangler, library: DemanglerLibrary) {
        ByteString.withBytes(symbol) { append(bytes: $0, own: &own, library: library) }
    }

    /// The same for a symbol's bytes (valid UTF-8); a `String` is made only for the library.
    mutating func append(bytes symbol: UnsafeBufferPointer<UInt8>, own: inout SymbolDemangler, library: DemanglerLibrary) {
        let answered: Bool
        switch own.demangle(symbol, forDisplay: true) {
        case nil: answered = false
        case .closure(let name):
            append(DemanglerLibrary.Demangled(name: name))
            answered = true
        case .full: answered = appendPlain(full: own.out.buffer)
        }
        if !answered { append(library.demangledByLibrary(String(decoding: symbol, as: UTF8.self))) }
    }

    mutating func append(_ demangled: DemanglerLibrary.Demangled) {
        names.append(demangled.name)
        returnTypes.append(demangled.returnType ?? "")
        hasReturnType.append(demangled.returnType != nil)
        if let module = demangled.module { modules.insert(module) }
    }

    /// A plain function's names read off its full name; false (nothing appended) when its shape is not read.
    private mutating func appendPlain(full: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let suffix = SimplifiedName.withDerived(fromFull: full, { name, suffix in names.append(bytes: name); return suffix }) else { return false }
        let type = SwiftDemangler.returnTypeRange(of: full, from: suffix)
        returnTypes.append(bytes: type.map { UnsafeBufferPointer(rebasing: full[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0))
        hasReturnType.append(type != nil)
        if let range = SwiftDemangler.moduleRange(of: full) {
            let module = UnsafeBufferPointer(rebasing: full[range])
            if !module.elementsEqual(lastModule) {
                modules.insert(String(decoding: module, as: UTF8.self))
                lastModule = Array(module)
            }
        }
        return true
    }

    /// Name `index` as `DemanglerLibrary.demangle` answers it (a chunk of that one name: its module is the chunk's).
    fileprivate func demangled(_ index: Int) -> DemanglerLibrary.Demangled {
        var demangled = DemanglerLibrary.Demangled(name: names[index])
        demangled.returnType = hasReturnType[index] ? returnTypes[index] : nil
        demangled.module = modules.first
        return demangled
    }

    mutating func trim() {
        names.trim()
        returnTypes.trim()
    }

    /// Name `index`'s display name, appended to `out`.
    func displayName(_ index: Int, modules: SwiftDemangler.ModuleNames, to out: inout [UInt8]) {
        names.withBytes(index) { name in
            guard hasReturnType[index] else {
                return SwiftDemangler.appendDisplayName(simplified: name, returnType: nil, modules: modules, to: &out)
            }
            returnTypes.withBytes(index) { SwiftDemangler.appendDisplayName(simplified: name, returnType: $0, modules: modules, to: &out) }
        }
    }
}
