import Foundation
import TestscopeExecution

/// Errors in test-result inputs and test runs, with what to do about them.
package enum TestResultsError: LocalizedError, Equatable {
    case unreadable(path: String, reason: String)
    case notJUnit(path: String, detail: String)
    case notAnEventStream(path: String, detail: String)
    case testListFailed(detail: String)
    case notTestsJSON(path: String)

    package var errorDescription: String? {
        switch self {
        case let .unreadable(path, reason):
            return "cannot read \(path): \(reason); check the path"
        case let .notJUnit(path, detail):
            return "\(path) is not a JUnit XML file (\(detail)); pass a file written by --xunit-output or a JUnit reporter"
        case let .notAnEventStream(path, detail):
            return "\(path) is not a Swift Testing event stream (\(detail)); pass a file written by --event-stream-output-path"
        case let .notTestsJSON(path):
            return "\(path) is not a tests.json of Testscope (no \"tests\" list of ids); pass the tests.json an earlier 'testscope run --format json' wrote"
        case let .testListFailed(detail):
            return "could not list the package's tests (\(detail)); check that `swift test list` works in the package"
        }
    }
}

extension TestResultsError: ClassifiedError {
    package var errorClass: ErrorClass { .badInput }
}
