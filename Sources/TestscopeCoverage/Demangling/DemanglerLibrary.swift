import Foundation
import TestscopeExecution
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The toolchain's demangler library (`lib/libswiftDemangle` beside the `bin` of the resolved
/// `swift`), called in process: the names `swift-demangle --simplified` and `swift-demangle` print.
final class DemanglerLibrary: Sendable {
    /// `size_t f(const char *mangled, char *buffer, size_t length)`: the length of the demangled name
    /// (copied with `strlcpy`, so a result ≥ `length` was cut), or 0 when the name is not mangled.
    typealias Entry = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int

    private let simplifiedEntry: Entry
    private let fullEntry: Entry

    private init(simplified: Entry, full: Entry) {
        simplifiedEntry = simplified
        fullEntry = full
    }

    /// The library at `path` loaded, or why it cannot be used (for the warning). Loaded once per path
    /// per process; the handle stays open for the life of the process.
    static func load(_ path: URL) -> Result<DemanglerLibrary, LoadFailure> {
        loaded.withLock { cache in
            if let known = cache[path.path] { return known }
            let result = open(path)
            cache[path.path] = result
            return result
        }
    }

    private static let loaded = Locked<[String: Result<DemanglerLibrary, LoadFailure>]>([:])

    private static func open(_ path: URL) -> Result<DemanglerLibrary, LoadFailure> {
        guard FileManager.default.fileExists(atPath: path.path) else { return .failure(LoadFailure(reason: "\(path.path) does not exist")) }
        guard let handle = dlopen(path.path, RTLD_NOW | RTLD_LOCAL) else { return .failure(LoadFailure(reason: "\(path.path) could not be loaded")) }
        guard let simplified = dlsym(handle, "swift_demangle_getSimplifiedDemangledName"),
              let full = dlsym(handle, "swift_demangle_getDemangledName") else {
            dlclose(handle)
            return .failure(LoadFailure(reason: "\(path.path) has no swift_demangle_getDemangledName"))
        }
        return .success(DemanglerLibrary(simplified: unsafeBitCast(simplified, to: Entry.self), full: unsafeBitCast(full, to: Entry.self)))
    }

    /// Why the library cannot be used.
    struct LoadFailure: Error, Sendable {
        let reason: String
    }

    /// One symbol's simplified name and what its full name tells: the module of a plain function and
    /// its return type. A name the library does not demangle is taken as it is, as `swift-demangle`
    /// prints it back; a closure's full name is not needed (its display name takes no return type).
    func demangle(_ symbol: String) -> Demangled {
        let name = call(simplifiedEntry, symbol) ?? symbol
        if SwiftDemangler.isClosure(name) { return Demangled(name: name, module: nil, returnType: nil) }
        let full = call(fullEntry, symbol) ?? symbol
        return Demangled(name: name, module: SwiftDemangler.module(ofFull: full), returnType: SwiftDemangler.returnType(ofFull: full))
    }

    /// One symbol demangled.
    struct Demangled: Sendable {
        var name: String
        var module: String?
        var returnType: String?
    }

    /// Calls `entry` with a stack buffer, and with a heap buffer of the right size when the name is longer.
    private func call(_ entry: Entry, _ symbol: String) -> String? {
        symbol.withCString { name -> String? in
            let first: (length: Int, value: String?) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer in
                let length = entry(name, buffer.baseAddress, buffer.count)
                guard length > 0, length < buffer.count else { return (length, nil) }
                return (length, String(cString: buffer.baseAddress!))
            }
            guard first.length >= 1024 else { return first.value }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: first.length + 1)
            defer { buffer.deallocate() }
            let length = entry(name, buffer, first.length + 1)
            guard length > 0, length <= first.length else { return nil }
            return String(cString: buffer)
        }
    }
}
