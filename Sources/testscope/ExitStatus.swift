import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeReports
import TestscopeTestResults

/// The documented exit statuses (README "Exit status").
enum ExitStatus: Int32 {
    case success = 0
    case testsFailed = 1
    case belowThreshold = 2
    /// `testscope flaky --fail-on-flaky` found flaky tests that are not quarantined.
    case flaky = 3
    case usage = 64
    case badInput = 65
    case internalError = 70

    var exitCode: ExitCode { ExitCode(rawValue) }
}

/// Runs a command body, turning every error into one line on stderr and its exit status.
func withErrorHandling(_ body: () throws -> ExitStatus) throws {
    let status: ExitStatus
    do {
        status = try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as CoverageError {
        Terminal.error(error.localizedDescription)
        status = .badInput
    } catch let error as ExecutionError {
        Terminal.error(error.localizedDescription)
        switch error {
        case .toolNotFound, .toolNotExecutable: status = .badInput
        case .outsideOutputFolder, .cannotWrite: status = .badInput
        case .launchFailed, .toolFailed: status = .internalError
        }
    } catch let error as TestResultsError {
        Terminal.error(error.localizedDescription)
        status = .badInput
    } catch let error as FlakinessError {
        Terminal.error(error.localizedDescription)
        switch error {
        case .malformedSeed, .unknownReplayIndex: status = .usage
        case .buildFailed: status = .testsFailed
        case .testBinaryFailed, .swiftTestingUnavailable: status = .internalError
        case .unreadableOrderFile, .badOrder, .unreadableQuarantine, .noTests, .unsupportedPlatform: status = .badInput
        }
    } catch let error as ReportError {
        Terminal.error(error.localizedDescription)
        status = .badInput
    } catch let error as ValidationError {
        Terminal.error(error.message)
        status = .usage
    } catch {
        Terminal.error(error.localizedDescription)
        status = .internalError
    }
    if status != .success { throw status.exitCode }
}
