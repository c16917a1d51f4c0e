import Foundation
import TestscopeExecution

/// Turns raw profiles and test binaries into an llvm-cov JSON export with the toolchain's own
/// `llvm-profdata` and `llvm-cov`, translating their failures into actionable errors.
package struct CoverageCollector: Sendable {
    package let toolchain: Toolchain

    package init(toolchain: Toolchain) { self.toolchain = toolchain }

    /// `llvm-profdata merge -sparse` of `.profraw`/`.profdata` inputs into `output`.
    package func mergeProfiles(_ inputs: [URL], into output: URL) throws {
        for input in inputs where !FileManager.default.fileExists(atPath: input.path) {
            throw CoverageError.fileNotFound(path: input.path)
        }
        let temp = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).tmp")
        Interruption.removeOnInterrupt(temp)
        defer { Interruption.forget(temp) }
        let result = try ProcessRunner.run(
            toolchain.llvmProfdata, ["merge", "-sparse", "-o", temp.path] + inputs.map(\.path))
        guard result.succeeded else {
            try? FileManager.default.removeItem(at: temp)
            throw diagnose(tool: toolchain.llvmProfdata, result: result, inputs: inputs)
        }
        try replace(output, with: temp)
    }

    /// `llvm-cov export` of `binaries` with `profile` (the slice `architecture` of universal binaries), written to `output`.
    package func export(profile: URL, binaries: [URL], architecture: String? = nil, to output: URL) throws {
        guard let first = binaries.first else { throw CoverageError.noInput }
        for file in [profile] + binaries where !FileManager.default.fileExists(atPath: file.path) {
            throw CoverageError.fileNotFound(path: file.path)
        }
        var arguments = ["export", "-instr-profile", profile.path, first.path]
        for extra in binaries.dropFirst() { arguments += ["-object", extra.path] }
        if let architecture { arguments += ["-arch", architecture] }
        let temp = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).tmp")
        Interruption.removeOnInterrupt(temp)
        defer { Interruption.forget(temp) }
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
        if lower.contains("-arch` specifier") || lower.contains("no object file for requested architecture") || lower.contains("unknown architecture") {
            let binary = inputs.dropFirst().first { lower.contains($0.lastPathComponent.lowercased()) } ?? inputs.last!
            return CoverageError.unreadable(path: binary.path, reason: message + "; pass --arch with one of the binary's architectures")
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
