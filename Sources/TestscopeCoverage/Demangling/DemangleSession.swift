import Foundation
import TestscopeExecution

/// The names of one report, demangled by the toolchain's library: each name added gets an index (the
/// names may be added while the records are read, on any thread); `finish()` demangles each distinct
/// symbol once, on every core, and returns the display names. Without the library the names stay
/// mangled, and `fallbackWarning` says so once.
public final class DemangleSession: Sendable {
    private let library: URL?
    /// The symbols added, by index.
    private let symbols = Locked<[String]>([])
    /// Why the names stay mangled, once `finish()` found it out.
    private let failure = Locked<String?>(nil)

    init(library: URL?) { self.library = library }

    /// Queues a name (a profile name: a file prefix is dropped); its display name will be at the
    /// returned index of `finish()`'s result.
    @discardableResult
    public func add(_ mangled: String) -> Int32 {
        let symbol = SwiftDemangler.symbol(in: mangled)
        return symbols.withLock { symbols in
            symbols.append(symbol)
            return Int32(symbols.count - 1)
        }
    }

    /// The same for a name's bytes as a names section holds them (bytes that are not valid UTF-8
    /// repaired, as a `String` made of them is).
    @discardableResult
    public func add(bytes mangled: UnsafeBufferPointer<UInt8>) -> Int32 {
        add(String(decoding: mangled, as: UTF8.self))
    }

    /// Adds `count` names at once and returns the index of the first (name `k` is at that plus `k`).
    /// `names(range, body)` hands the bytes of the names in `range` to `body`, in order.
    public func add(count: Int, names: (Range<Int>, (UnsafeBufferPointer<UInt8>) -> Void) -> Void) -> Int32 {
        var added: [String] = []
        added.reserveCapacity(count)
        names(0..<count) { added.append(SwiftDemangler.symbol(in: String(decoding: $0, as: UTF8.self))) }
        return symbols.withLock { symbols in
            defer { symbols += added }
            return Int32(symbols.count)
        }
    }

    /// Why the names added stay mangled, when the library could not be used: without it, a report
    /// with every function as `$s6Shapes4area…` said nothing of why (no toolchain on `PATH`).
    public var fallbackWarning: Diagnostic? {
        guard symbols.withLock({ !$0.isEmpty }), let why = failure.withLock({ $0 }) ?? (library == nil ? Self.noToolchain : nil) else { return nil }
        return .warning("function names are shown mangled: \(why); put the toolchain's swift on PATH or set TESTSCOPE_SWIFT to it")
    }

    private static let noToolchain = "no Swift toolchain was found to demangle them (its lib/libswiftDemangle)"

    /// The display names: the simplified name, plus ` -> ` and the return type (the modules of the
    /// report's functions and the known ones stripped) for functions.
    public func finish() -> DemangledNames {
        let symbols = self.symbols.withLock { $0 }
        guard let library, !symbols.isEmpty else { return DemangledNames(display: []) }
        let demangler: DemanglerLibrary
        switch DemanglerLibrary.load(library) {
        case .success(let loaded): demangler = loaded
        case .failure(let failure):
            self.failure.withLock { $0 = failure.reason }
            return DemangledNames(display: [])
        }
        // Each distinct symbol once (a symbol's display name depends only on it and the modules).
        var distinct: [String: Int32] = [:]
        var unique: [String] = []
        let slot = symbols.map { symbol -> Int32 in
            if let known = distinct[symbol] { return known }
            unique.append(symbol)
            distinct[symbol] = Int32(unique.count - 1)
            return Int32(unique.count - 1)
        }
        distinct = [:]
        let demangled = Parallel.chunkedMap(unique.count) { demangler.demangle(unique[$0]) }
        var modules = SwiftDemangler.knownModules
        for name in demangled { if let module = name.module { modules.insert(module) } }
        let display = Parallel.chunkedMap(demangled.count) {
            SwiftDemangler.displayName(simplified: demangled[$0].name, returnType: demangled[$0].returnType, modules: modules)
        }
        return DemangledNames(display: slot.map { display[Int($0)] })
    }
}

/// The display names of one demangling session, by the index `add` returned.
public struct DemangledNames: Sendable {
    private let display: [String]

    init(display: [String]) { self.display = display }

    /// The display name of the name added at `index`: the mangled name itself when demangling
    /// failed or changed nothing.
    public func displayName(at index: Int32, mangled: String) -> String {
        guard index >= 0, Int(index) < display.count else { return mangled }
        let name = display[Int(index)]
        return name.utf8.elementsEqual(SwiftDemangler.symbol(in: mangled).utf8) ? mangled : name
    }

    public var isEmpty: Bool { display.isEmpty }
}
