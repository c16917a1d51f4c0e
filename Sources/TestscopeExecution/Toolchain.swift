import Foundation

/// The LLVM coverage tools of the Swift toolchain in use (never the first `llvm-cov` on `PATH`).
package struct Toolchain: Sendable, Equatable {
    package var swift: URL?
    package var llvmCov: URL
    package var llvmProfdata: URL
    /// The toolchain's demangler library, `lib/libswiftDemangle` beside the `bin` of `swift` (or of
    /// `llvm-cov`); names stay mangled when it is not there.
    package var demangler: URL?

    package init(swift: URL?, llvmCov: URL, llvmProfdata: URL, demangler: URL?) {
        self.swift = swift
        self.llvmCov = llvmCov
        self.llvmProfdata = llvmProfdata
        self.demangler = demangler
    }

    /// What the user may override: command-line options win over environment variables.
    package struct Overrides: Sendable {
        package var llvmCov: String?
        package var llvmProfdata: String?
        package var swift: String?
        package init(llvmCov: String? = nil, llvmProfdata: String? = nil, swift: String? = nil) {
            self.llvmCov = llvmCov
            self.llvmProfdata = llvmProfdata
            self.swift = swift
        }
    }

    /// The `swift` to build and run with: the override, `TESTSCOPE_SWIFT`, or the first on `PATH`.
    package static func findSwift(override: String? = nil,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL? {
        try (override ?? environment["TESTSCOPE_SWIFT"]).map { try checkedExecutable($0) } ?? findInPath("swift", environment: environment)
    }

    /// Finds the tools: overrides, then beside the resolved `swift` (symlinks followed), then `xcrun` on macOS.
    package static func locate(
        overrides: Overrides = Overrides(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Toolchain {
        let swift = try findSwift(override: overrides.swift, environment: environment)
        let toolDir = swift.map { $0.resolvingSymlinksInPath().deletingLastPathComponent() }

        func tool(_ name: String, override: String?, envKey: String) throws -> URL {
            if let explicit = override ?? environment[envKey] {
                return try checkedExecutable(explicit)
            }
            var searched: [String] = []
            if let dir = toolDir {
                let candidate = dir.appendingPathComponent(name)
                searched.append(dir.path)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            #if os(macOS)
            if let found = try? xcrunFind(name) { return found }
            searched.append("xcrun --find \(name)")
            #endif
            throw ExecutionError.toolNotFound(tool: name, searched: searched)
        }

        let cov = try tool("llvm-cov", override: overrides.llvmCov, envKey: "TESTSCOPE_LLVM_COV")
        let profdata = try tool("llvm-profdata", override: overrides.llvmProfdata, envKey: "TESTSCOPE_LLVM_PROFDATA")
        #if os(macOS)
        let library = "lib/libswiftDemangle.dylib"
        #else
        let library = "lib/libswiftDemangle.so"
        #endif
        // The first that exists, else the one beside `swift` (the warning then names it).
        let candidates = [toolDir, cov.resolvingSymlinksInPath().deletingLastPathComponent()].compactMap { $0 }
            .map { $0.deletingLastPathComponent().appendingPathComponent(library) }
        let demangler = candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates.first
        return Toolchain(swift: swift, llvmCov: cov, llvmProfdata: profdata, demangler: demangler)
    }

    /// The directory that holds the toolchain's own tools, for messages that say which tool to use.
    package var suggestedToolDirectory: String? {
        swift?.resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    static func checkedExecutable(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue,
              FileManager.default.isExecutableFile(atPath: url.path)
        else { throw ExecutionError.toolNotExecutable(path: path) }
        return url
    }

    /// The first executable called `name` on `PATH`.
    package static func findInPath(_ name: String, environment: [String: String]) -> URL? {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    #if os(macOS)
    static func xcrunFind(_ name: String) throws -> URL? {
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/xcrun"), ["--find", name])
        guard result.status == 0 else { return nil }
        let path = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? nil : URL(fileURLWithPath: path)
    }
    #endif
}
