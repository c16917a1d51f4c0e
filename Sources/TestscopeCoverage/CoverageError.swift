import Foundation
import TestscopeExecution
import TestscopeProfileData

/// Errors in coverage inputs; each message says what is wrong, with which file, and what to do.
public enum CoverageError: LocalizedError, Equatable {
    case fileNotFound(path: String)
    case unreadable(path: String, reason: String)
    case emptyExport(path: String)
    case invalidJSON(path: String, line: Int, message: String)
    case invalidExportRecord(path: String, line: Int, record: String, problem: String)
    case notAnExport(path: String, type: String?)
    case exportWithoutData(path: String)
    case summaryOnlyExport(path: String)
    case noInput
    case noProfiles(directory: String)
    case noTestBinary(directory: String)
    case profileFromOtherToolchain(path: String, detail: String)
    case wrongLLVMTool(tool: String, detail: String, suggestion: String?)
    case binaryWithoutCoverage(path: String, detail: String)
    case unusableProfiles(paths: [String], detail: String)
    /// The profiles were written by another build of `binary`; `evidence` says how that is known.
    case mismatchedProfile(binary: String, evidence: String, profiles: [String])
    /// The profiles count functions, but none of the binaries': written by another program or build.
    case unrelatedProfile(binaries: [String], profiles: [String])
    case notAPackage(path: String)
    case noTests(package: String)
    case invalidGlob(pattern: String)
    case invalidPathEquivalence(value: String)

    public var errorDescription: String? {
        switch self {
        case let .fileNotFound(path):
            return "\(path) does not exist; check the path (run `testscope run` first to create coverage data)"
        case let .unreadable(path, reason):
            return "cannot read \(path): \(reason)"
        case let .emptyExport(path):
            return "\(path) is empty; re-create it with `llvm-cov export -instr-profile <profdata> <test binary>`"
        case let .invalidJSON(path, line, message):
            return "\(path) is not valid JSON (line \(line): \(message)); re-create the export with the toolchain's `llvm-cov export`"
        case let .invalidExportRecord(path, line, record, problem):
            return "\(path) line \(line): \(record) is invalid: \(problem); the export is damaged or was not written by llvm-cov, re-create it with the toolchain's `llvm-cov export`"
        case let .notAnExport(path, type):
            let what = type.map { "of type \"\($0)\"" } ?? "without a \"type\" field"
            return "\(path) is JSON \(what), not an llvm-cov export (\"llvm.coverage.json.export\"); pass the output of `llvm-cov export`"
        case let .exportWithoutData(path):
            return "\(path) is an llvm-cov export without a \"data\" array (no coverage in it); re-create it with `llvm-cov export -instr-profile <profdata> <test binary>`"
        case let .summaryOnlyExport(path):
            return "\(path) is a summary-only export (no per-line segments); re-export without -summary-only so line coverage can be computed"
        case .noInput:
            return "no coverage input; pass --export FILE, --profile FILE with --binary FILE, or --build-path DIR"
        case let .noProfiles(directory):
            return "no coverage profiles (.profraw/.profdata) in \(directory); run the tests with --enable-code-coverage (or `testscope run`) first"
        case let .noTestBinary(directory):
            return "no test binary (*PackageTests.xctest) in \(directory); build the tests first (`swift build --build-tests`) or pass --binary"
        case let .profileFromOtherToolchain(path, detail):
            return "\(path) cannot be read by this toolchain's LLVM (\(detail)); re-create it with the same Swift toolchain that built the tests"
        case let .wrongLLVMTool(tool, detail, suggestion):
            let hint = suggestion.map { "; use the toolchain's own: --\(URL(fileURLWithPath: tool).lastPathComponent) \($0)" }
                ?? "; use the llvm tools that ship beside the `swift` that built the tests"
            return "\(tool) cannot read Swift's coverage data (\(detail))\(hint)"
        case let .binaryWithoutCoverage(path, detail):
            return "\(path) has no coverage mapping (\(detail)); build it with `swift build --build-tests --enable-code-coverage` or run `testscope run`"
        case let .unusableProfiles(paths, detail):
            let what = paths.count == 1 ? "\(paths[0]) is not a readable profile" : "none of the \(paths.count) profiles is readable (\(paths.joined(separator: ", ")))"
            return "\(what): \(detail); re-run the tests to write it again (a test process killed while writing leaves a profile truncated)"
        case let .mismatchedProfile(binary, evidence, profiles):
            return "the profile (\(profiles.joined(separator: ", "))) was recorded by another build than \(binary) (\(evidence)): its counts would be wrong; re-run the tests of this build, or pass --allow-mismatched-profile to report anyway"
        case let .unrelatedProfile(binaries, profiles):
            return "the profile (\(profiles.joined(separator: ", "))) has no count for any function of \(binaries.joined(separator: ", ")): it was written by another program or build (or by another LLVM); re-run the tests of this build, or pass --allow-mismatched-profile to report anyway"
        case let .notAPackage(path):
            return "neither \(path) nor a folder above it has a Package.swift; pass --package-path with the root of a Swift package"
        case let .noTests(package):
            return "the package at \(package) has no tests; add a test target under Tests/ (coverage comes from running tests)"
        case let .invalidGlob(pattern):
            return "invalid glob pattern \"\(pattern)\"; use *, ** and ? wildcards"
        case let .invalidPathEquivalence(value):
            return "invalid --path-equivalence \"\(value)\"; use FROM,TO (two paths separated by a comma)"
        }
    }
}

extension CoverageError: ClassifiedError {
    public var errorClass: ErrorClass { .badInput }
}

extension CoverageError {
    /// A mapping reader's error about `binary` in the coverage model's terms (`unsupported` stays:
    /// it means fall back to llvm-cov).
    package static func translated(_ error: any Error, binary: String) -> any Error {
        guard let error = error as? ProfileDataError else { return error }
        switch error {
        case .unsupported: return error
        case .noCoverageMapping(let detail): return CoverageError.binaryWithoutCoverage(path: binary, detail: detail)
        case .truncated(let detail), .corrupt(let detail), .io(let detail), .architecture(let detail):
            return CoverageError.unreadable(path: binary, reason: detail)
        }
    }
}
