import Foundation
import TestscopeExecution

/// Errors of `testscope flaky`: bad seeds and orders, builds and runs that cannot go on, with what to do.
package enum FlakinessError: LocalizedError, Equatable {
    /// `--seed` is not an integer in the accepted range.
    case malformedSeed(String)
    /// `--replay K` names a run the plan does not have.
    case unknownReplayIndex(Int, runs: Int)
    /// `--order-file` cannot be read.
    case unreadableOrderFile(path: String, reason: String)
    /// An order (file or `--order`) names no test, or a test the package does not have.
    case badOrder(source: String, detail: String)
    /// `--quarantine` cannot be read.
    case unreadableQuarantine(path: String, reason: String)
    /// The package with Testscope's entry point did not build.
    case buildFailed(scratchPath: String, log: String)
    /// The build produced no test binary, or it has no tests after `--filter`/`--skip`.
    case noTests(package: String)
    /// In-process orders need SwiftPM's Linux test discovery.
    case unsupportedPlatform
    /// The test binary could not be listed or started.
    case testBinaryFailed(binary: String, detail: String)
    /// The binary has no `swt_abiv0_getEntryPoint`: Swift Testing tests fall back to repetition.
    case swiftTestingUnavailable

    package var errorDescription: String? {
        switch self {
        case let .malformedSeed(text):
            return "--seed takes an integer from 0 to \(OrderPlan.maximumSeed), not '\(text)'; pass the seed a previous run printed"
        case let .unknownReplayIndex(index, runs):
            return "--replay \(index) is not a run of this plan: --runs \(runs) has runs 0 to \(runs - 1); pass the run number a previous run printed (with the same --runs)"
        case let .unreadableOrderFile(path, reason):
            return "cannot read the order file \(path): \(reason); pass a file with one test id per line, as `swift test list` prints them"
        case let .badOrder(source, detail):
            return "\(source): \(detail); use test ids as `swift test list` prints them (Module.Class/testMethod, Module.Suite/function())"
        case let .unreadableQuarantine(path, reason):
            return "cannot read the quarantine file \(path): \(reason); pass a file with one test id per line"
        case let .buildFailed(scratchPath, log):
            return "the tests did not build with Testscope's entry point in \(scratchPath) (see \(log)); check that `swift build --build-tests` works in the package"
        case let .noTests(package):
            return "no tests to run in \(package) (no test binary, or --filter/--skip left none); check the package's test targets and the filters"
        case .unsupportedPlatform:
            return "testscope flaky needs Linux (or Windows): in-process orders use SwiftPM's test discovery, which macOS does not use; run it in a Linux container"
        case .swiftTestingUnavailable:
            return "Swift Testing's ABI entry point (swt_abiv0_getEntryPoint) is not in the test binary; its tests can only be repeated, not reordered"
        case let .testBinaryFailed(binary, detail):
            return "the test binary \(binary) failed: \(detail); check that the package's tests run with `swift test`"
        }
    }
}

extension FlakinessError: ClassifiedError {
    package var errorClass: ErrorClass {
        switch self {
        case .malformedSeed, .unknownReplayIndex: return .usage
        case .buildFailed: return .testsFailed
        case .testBinaryFailed, .swiftTestingUnavailable: return .internalError
        case .unreadableOrderFile, .badOrder, .unreadableQuarantine, .noTests, .unsupportedPlatform: return .badInput
        }
    }
}
