import Foundation
import TestscopeExecution

/// The names of one report, demangled by the toolchain's library: each name added gets an index, and
/// the names are demangled a chunk at a time on Dispatch's workers while the caller goes on reading
/// (the library takes microseconds a name: done only in `finish()`, the other core idled meanwhile);
/// `finish()` returns the display names. Without the library the names stay mangled, and
/// `fallbackWarning` says so once.
package final class DemangleSession: Sendable {
    private let library: URL?
    /// Names added so far, and the symbols not yet handed to a worker.
    private let state = Locked<(count: Int, pending: [String])>((0, []))
    /// Demangled chunks by the index of their first name, in the order the workers finished them.
    private let chunks = Locked<[(start: Int, names: [DemanglerLibrary.Demangled])]>([])
    /// Chunks submitted and not yet taken, oldest first: a worker takes the oldest, and `finish()`
    /// takes what is left itself instead of waiting.
    private let jobs = Locked<(items: [Job?], next: Int)>(([], 0))
    private let group = DispatchGroup()

    private struct Job: Sendable {
        let start: Int
        let library: DemanglerLibrary
        let symbols: @Sendable () -> [String]
    }

    static let chunkSize = 1024

    /// The library loaded, or why not (nil: no toolchain).
    private let loaded: Result<DemanglerLibrary, DemanglerLibrary.LoadFailure>?

    /// A session is made only when a report shows function names: the library is loaded now.
    init(library: URL?) {
        self.library = library
        loaded = library.map { DemanglerLibrary.load($0) }
    }

    /// The library (nil: the names stay mangled).
    private var demangler: DemanglerLibrary? { try? loaded?.get() }

    /// Queues a name (a profile name: a file prefix is dropped); its display name will be at the
    /// returned index of `finish()`'s result.
    @discardableResult
    package func add(_ mangled: String) -> Int32 {
        guard let demangler else { return state.withLock { state in defer { state.count += 1 }; return Int32(state.count) } }
        let symbol = SwiftDemangler.symbol(in: mangled)
        let (index, chunk) = state.withLock { state -> (Int, (start: Int, symbols: [String])?) in
            defer { state.count += 1 }
            state.pending.append(symbol)
            guard state.pending.count >= Self.chunkSize else { return (state.count, nil) }
            defer { state.pending = [] }
            return (state.count, (state.count + 1 - state.pending.count, state.pending))
        }
        if let chunk { submit(chunk.start, demangler) { chunk.symbols } }
        return Int32(index)
    }

    /// Adds `count` names at once and returns the index of the first (name `k` is at that plus `k`).
    /// `names(range, body)` hands the names in `range` to `body`, in order; it is called on the
    /// workers, a chunk at a time.
    package func add(count: Int, names: @escaping @Sendable (Range<Int>, (String) -> Void) -> Void) -> Int32 {
        let (first, pending) = state.withLock { state in
            defer { state.count += count; state.pending = [] }
            return (state.count, (start: state.count - state.pending.count, symbols: state.pending))
        }
        guard let demangler else { return Int32(first) }
        if !pending.symbols.isEmpty { submit(pending.start, demangler) { pending.symbols } }
        for start in stride(from: 0, to: count, by: Self.chunkSize) {
            let range = start..<min(start + Self.chunkSize, count)
            submit(first + start, demangler) {
                var symbols: [String] = []
                symbols.reserveCapacity(range.count)
                names(range) { symbols.append(SwiftDemangler.symbol(in: $0)) }
                return symbols
            }
        }
        return Int32(first)
    }

    /// Demangles on a worker the chunk of names from index `start` that `symbols` gives.
    private func submit(_ start: Int, _ library: DemanglerLibrary, _ symbols: @escaping @Sendable () -> [String]) {
        jobs.withLock { $0.items.append(Job(start: start, library: library, symbols: symbols)) }
        DispatchQueue.global().async(group: group) { [self] in _ = runOldestJob() }
    }

    /// Takes the oldest chunk not yet taken and demangles it; false when there was none.
    private func runOldestJob() -> Bool {
        let job = jobs.withLock { jobs -> Job? in
            guard jobs.next < jobs.items.count else { return nil }
            defer { jobs.items[jobs.next] = nil; jobs.next += 1 }
            return jobs.items[jobs.next]
        }
        guard let job else { return false }
        let names = job.symbols().map(job.library.demangle)
        chunks.withLock { $0.append((job.start, names)) }
        return true
    }

    /// Why the names added stay mangled, when the library could not be used: without it, a report
    /// with every function as `$s6Shapes4area…` said nothing of why (no toolchain on `PATH`).
    package var fallbackWarning: Diagnostic? {
        guard state.withLock({ $0.count > 0 }) else { return nil }
        let why: String
        switch loaded {
        case nil: why = "no Swift toolchain was found to demangle them (its lib/libswiftDemangle)"
        case .failure(let failure): why = failure.reason
        case .success: return nil
        }
        return .warning("function names are shown mangled: \(why); put the toolchain's swift on PATH or set TESTSCOPE_SWIFT to it")
    }

    /// The display names: the simplified name, plus ` -> ` and the return type (the modules of the
    /// report's functions and the known ones stripped) for functions.
    package func finish() -> DemangledNames {
        let rest = state.withLock { state in defer { state.pending = [] }; return (start: state.count - state.pending.count, symbols: state.pending) }
        if let demangler, !rest.symbols.isEmpty { submit(rest.start, demangler) { rest.symbols } }
        while runOldestJob() {}
        group.wait()
        let sorted = chunks.withLock { chunks in defer { chunks = [] }; return chunks }.sorted { $0.start < $1.start }
        var modules = SwiftDemangler.knownModules
        for chunk in sorted { for name in chunk.names { if let module = name.module { modules.insert(module) } } }
        let display = Parallel.map(sorted.count) { k in
            sorted[k].names.map { SwiftDemangler.displayName(simplified: $0.name, returnType: $0.returnType, modules: modules) }
        }
        return DemangledNames(display: Array(display.joined()))
    }
}

/// The display names of one demangling session, by the index `add` returned.
package struct DemangledNames: Sendable {
    private let display: [String]

    init(display: [String]) { self.display = display }

    /// The display name of the name added at `index`: the mangled name itself when demangling
    /// failed or changed nothing.
    package func displayName(at index: Int32, mangled: String) -> String {
        guard index >= 0, Int(index) < display.count else { return mangled }
        let name = display[Int(index)]
        return SwiftDemangler.symbolIs(name, in: mangled) ? mangled : name
    }

    package var isEmpty: Bool { display.isEmpty }
}
