import Foundation
import TestscopeExecution

/// Turns raw profiles and test binaries into an llvm-cov JSON export with the toolchain's own
/// `llvm-profdata` and `llvm-cov`, translating their failures into actionable errors.
public struct CoverageCollector: Sendable {
    public let toolchain: Toolchain

    public init(toolchain: Toolchain) { self.toolchain = toolchain }

    /// `llvm-profdata merge -sparse` of `.profraw`/`.profdata` inputs into `output`.
    public func mergeProfiles(_ inputs: [URL], into output: URL) throws {
        for input in inputs where !FileManager.default.fileExists(atPath: input.path) {
            throw CoverageError.fileNotFound(path: input.path)
        }
        let temp = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).tmp")
        let result = try ProcessRunner.run(
            toolchain.llvmProfdata, ["merge", "-sparse", "-o", temp.path] + inputs.map(\.path))
        guard result.succeeded else {
            try? FileManager.default.removeItem(at: temp)
            throw diagnose(tool: toolchain.llvmProfdata, result: result, inputs: inputs)
        }
        try replace(output, with: temp)
    }

    /// `llvm-cov export` of `binaries` with `profile`, written to `output`.
    public func export(profile: URL, binaries: [URL], to output: URL) throws {
        guard let first = binaries.first else { throw CoverageError.noInput }
        for file in [profile] + binaries where !FileManager.default.fileExists(atPath: file.path) {
            throw CoverageError.fileNotFound(path: file.path)
        }
        var arguments = ["export", "-instr-profile", profile.path, first.path]
        for extra in binaries.dropFirst() { arguments += ["-object", extra.path] }
        let temp = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).tmp")
        let result = try ProcessRunner.run(toolchain.llvmCov, arguments, stdoutFile: temp)
        guard result.succeeded else {
            try? FileManager.default.removeItem(at: temp)
            throw diagnose(tool: toolchain.llvmCov, result: result, inputs: [profile] + binaries)
        }
        try replace(output, with: temp)
    }

    private func replace(_ destination: URL, with temp: URL) throws {
        if rename(temp.path, destination.path) != 0 {
            throw ExecutionError.cannotWrite(path: destination.path, reason: String(cString: strerror(errno)))
        }
    }

    /// Maps llvm's messages to what the user should do.
    func diagnose(tool: URL, result: ProcessResult, inputs: [URL]) -> Error {
        let lines = result.stderrText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let errorLine = lines.first { !$0.hasPrefix("warning:") }
        // `llvm-profdata merge` reports each unreadable input as a warning, then only
        // "error: no profile can be merged": the first warning says which input and why.
        let mergeWarning = errorLine.map { $0.lowercased().contains("no profile can be merged") } == true
            ? lines.first { $0.hasPrefix("warning:") } : nil
        let message = mergeWarning ?? errorLine ?? "exit status \(result.status)"
        let lower = message.lowercased()
        let toolIsToolchains = toolchain.suggestedToolDirectory.map {
            tool.resolvingSymlinksInPath().deletingLastPathComponent().path == $0
        } ?? false
        let culprit = inputs.first { lower.contains($0.path.lowercased()) || lower.contains($0.lastPathComponent.lowercased()) }
            ?? inputs.first!
        if lower.contains("unsupported instrumentation profile format version") || lower.contains("unsupported version") {
            if !toolIsToolchains {
                let suggestion = toolchain.suggestedToolDirectory.map { $0 + "/" + tool.lastPathComponent }
                return CoverageError.wrongLLVMTool(tool: tool.path, detail: message, suggestion: suggestion)
            }
            return CoverageError.profileFromOtherToolchain(path: culprit.path, detail: message)
        }
        if lower.contains("no coverage data found") || lower.contains("no coverage mapping") {
            return CoverageError.binaryWithoutCoverage(path: inputs.last!.path, detail: message)
        }
        if lower.contains("no such file") {
            return CoverageError.fileNotFound(path: culprit.path)
        }
        if lower.contains("invalid instrumentation profile") || lower.contains("corrupt") || lower.contains("truncated")
            || lower.contains("malformed") || lower.contains("invalid profile") || lower.contains("not a valid") {
            return CoverageError.profileFromOtherToolchain(path: culprit.path, detail: message)
        }
        if lower.contains("the file was not recognized") || lower.contains("invalid data") || lower.contains("is not an object file") {
            return CoverageError.binaryWithoutCoverage(path: culprit.path, detail: message)
        }
        if result.terminatedBySignal {
            return ExecutionError.toolFailed(tool: tool.path, status: result.status, message: "crashed with signal \(result.status)")
        }
        return ExecutionError.toolFailed(tool: tool.path, status: result.status, message: message)
    }
}

/// Finds coverage artifacts in a SwiftPM build folder.
public enum BuildArtifacts {
    /// The newest `codecov` folder under a build path (`.build/<triple>/<config>/codecov` or `.build/<config>/codecov`).
    public static func codecovDirectory(in buildPath: URL) -> URL? {
        let fm = FileManager.default
        var candidates: [URL] = []
        let direct = buildPath.appendingPathComponent("codecov")
        if fm.fileExists(atPath: direct.path) { candidates.append(direct) }
        for level1 in (try? fm.contentsOfDirectory(atPath: buildPath.path)) ?? [] where !level1.hasPrefix(".") {
            let dir1 = buildPath.appendingPathComponent(level1)
            let c1 = dir1.appendingPathComponent("codecov")
            if fm.fileExists(atPath: c1.path) { candidates.append(c1) }
            for level2 in (try? fm.contentsOfDirectory(atPath: dir1.path)) ?? [] where level2 == "debug" || level2 == "release" {
                let c2 = dir1.appendingPathComponent(level2).appendingPathComponent("codecov")
                if fm.fileExists(atPath: c2.path) { candidates.append(c2) }
            }
        }
        return candidates.max { modified($0) < modified($1) }
    }

    /// Profiles in a codecov folder: `.profraw` files (optionally only those newer than `since`),
    /// or the merged `.profdata` when there are none.
    public static func profiles(in codecov: URL, since: Date? = nil) -> (raw: [URL], merged: [URL]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: codecov.path)) ?? []
        let urls = names.sorted().map { codecov.appendingPathComponent($0) }
        let raw = urls.filter { url in url.pathExtension == "profraw" && (since.map { modified(url) >= $0 } ?? true) }
        let merged = urls.filter { $0.pathExtension == "profdata" }
        return (raw, merged)
    }

    /// The test binary SwiftPM builds (`<Package>PackageTests.xctest`; inside the bundle on macOS).
    public static func testBinary(in binDirectory: URL) -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: binDirectory.path)) ?? []
        let bundles = names.filter { $0.hasSuffix("PackageTests.xctest") }.map { binDirectory.appendingPathComponent($0) }
        guard let bundle = bundles.max(by: { modified($0) < modified($1) }) else { return nil }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: bundle.path, isDirectory: &isDir), isDir.boolValue {
            let macos = bundle.appendingPathComponent("Contents/MacOS")
            let inner = (try? FileManager.default.contentsOfDirectory(atPath: macos.path))?.first
            return inner.map { macos.appendingPathComponent($0) }
        }
        return bundle
    }

    public static func modified(_ url: URL) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
    }
}
