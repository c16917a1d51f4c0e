import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeRun
import TestscopeTestResults

/// `run`'s failure labels (`RunRequest.failureLabeler`) and its retries of the failures not touched by the
/// change (`retryUntouched`), in the binary the run built: a test that passes on a retry is flaky.
struct FailureRetries {
    static let folderName = ".retries-in-progress"
    let terminal: Terminal

    /// Labels every failing test: the labeler's label, given the run's per-test coverage; without it, unknown.
    static func label(_ tests: inout TestRunResults, labeler: FailureLabeler, perTest: PerTestCoverage?) {
        let failing = failingIDs(tests)
        guard !failing.isEmpty else { return }
        let labels = perTest.map { labeler($0, failing) } ?? [:]
        let missing: FailureLabel = .unknown(perTest == nil ? "the run recorded no per-test coverage" : "no label was given")
        for id in failing { tests.failureLabels[id] = labels[id] ?? missing }
    }

    /// Runs the failures labelled notTouched again, each until it passes or has run `times` more times, the
    /// retries' artifacts in a folder of `output` removed afterwards (their coverage is not the run's). A test
    /// that passes takes the retry's results, its failed attempts kept in `otherAttempts`; one that never
    /// does keeps the run's result, its retries' failures kept there.
    func retry(_ tests: inout TestRunResults, times: Int, coordinator: TestRunCoordinator, binary: URL, listed: TestList,
               output: OutputFolder) throws {
        var pending = Self.failingIDs(tests).filter { tests.failureLabels[$0] == .notTouched }
        guard times > 0, !pending.isEmpty else { return }
        let folder = try output.file(Self.folderName)
        try? FileManager.default.removeItem(at: folder)
        try Interruption.creatingTemporary(folder) { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer {
            try? FileManager.default.removeItem(at: folder)
            Interruption.forget(folder)
        }
        for attempt in 1...times where !pending.isEmpty {
            terminal.note("running \(pending.count) failed test(s) not touched by the change again (retry \(attempt) of \(times))")
            let ids = Set(pending)
            let list = TestList(xctest: listed.xctest.filter(ids.contains), swiftTesting: listed.swiftTesting.filter(ids.contains))
            let attemptFolder = folder.appendingPathComponent("\(attempt)")
            let again = try coordinator.rerun(list, binary: binary, listed: listed, folder: attemptFolder)
            for id in pending {
                let now = again.results.filter { $0.id == id }
                // A retry that reported nothing (its process died before the test) counts as failed again.
                guard !now.isEmpty, !now.contains(where: \.outcome.isFailure) else {
                    tests.otherAttempts[id, default: []] += now.filter(\.outcome.isFailure)
                    continue
                }
                let earlier = tests.results.filter { $0.id == id && $0.outcome.isFailure }
                tests.otherAttempts[id] = earlier + tests.otherAttempts[id, default: []]
                let position = tests.results.firstIndex { $0.id == id } ?? tests.results.endIndex
                tests.results.removeAll { $0.id == id }
                tests.results.insert(contentsOf: now, at: min(position, tests.results.endIndex))
                pending.removeAll { $0 == id }
            }
        }
    }

    /// The ids of the failing tests, once each, in the results' order.
    static func failingIDs(_ tests: TestRunResults) -> [String] {
        var seen = Set<String>()
        return tests.results.filter { $0.outcome.isFailure && seen.insert($0.id).inserted }.map(\.id)
    }
}
