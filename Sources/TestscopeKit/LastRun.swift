import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeTestResults

/// `.testscope-run.json`: what the last `testscope run` into an output folder read its reports from (raw
/// profiles, test binary, console log, event streams, test list), so that `testscope report` without inputs
/// renders them again, with other formats, filters or gates. Files inside the folder are named relative to
/// it; the test binary (in the build folder) by its absolute path. docs/output-folder.md describes it.
public struct LastRun: Codable, Sendable, Equatable {
    public static let fileName = ".testscope-run.json"
    public var version = 1
    public var packageRoot: String
    public var profiles: [String]
    public var binaries: [String]
    public var testLogs: [String]
    public var eventStreams: [String]
    public var testList: String?
    /// Whether the run's counters were atomic or its tests ran in parallel (absent in older records).
    public var negativeCounts: NegativeCountCause?
    /// What only the run's supervisor knew, which no log or stream says: how often it relaunched the test
    /// binary, and the tests it killed at the timeout (absent in older records).
    public var supervisor: SupervisorVerdicts?
    /// A selective run's carried-forward coverage (`run --affected`), which `report` and `merge` add again.
    package var carried: CarriedCoverage?

    /// The supervisor's part of a run's results, laid over the results `report` reads from the logs again.
    public struct SupervisorVerdicts: Codable, Sendable, Equatable {
        public var relaunches: Int
        public var timedOut: [TestCaseResult]
        /// The tests a selection did not run, with their skips (absent without a selection and in older records).
        public var notSelected: [NotSelected]?

        /// The failures' labels, by id (absent when the run labelled none).
        public var failureLabels: [String: FailureLabel]?
        /// The tests run again after a failure: their final results and other attempts (absent without retries).
        public var retried: [Retried]?

        /// A test run again after a failure: what `run` reported of it once the retries were over.
        public struct Retried: Codable, Sendable, Equatable {
            public var id: String
            public var results: [TestCaseResult]
            public var otherAttempts: [TestCaseResult]
        }

        /// A test the run's selection skipped: its skipped result and the duration its skip saved.
        public struct NotSelected: Codable, Sendable, Equatable {
            public var result: TestCaseResult
            public var recordedDuration: Double?
        }

        init(_ results: TestRunResults) {
            relaunches = results.relaunches
            timedOut = results.results.filter { $0.outcome == .timedOut }
            let skipped = Dictionary(results.results.filter { $0.outcome == .skipped }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let notSelected = results.notSelected.compactMap { id, skip in
                skipped[id].map { NotSelected(result: $0, recordedDuration: skip.recordedDuration) }
            }
            self.notSelected = notSelected.isEmpty ? nil : notSelected
            failureLabels = results.failureLabels.isEmpty ? nil : results.failureLabels
            let retried = results.otherAttempts.keys.sorted().map { id in
                Retried(id: id, results: results.results.filter { $0.id == id }, otherAttempts: results.otherAttempts[id] ?? [])
            }
            self.retried = retried.isEmpty ? nil : retried
        }

        /// `results` with the relaunches, each killed test's result and the selection's skips as the run reported them.
        func applied(to results: TestRunResults) -> TestRunResults {
            var results = results
            results.relaunches = max(results.relaunches, relaunches)
            let killed = Dictionary(timedOut.map { ($0.id + "\u{0}" + ($0.arguments ?? ""), $0) }, uniquingKeysWith: { first, _ in first })
            results.results = results.results.map { killed[$0.id + "\u{0}" + ($0.arguments ?? "")] ?? $0 }
            // The retries' logs are not kept: a retried test's results are the record's.
            for test in retried ?? [] {
                let position = results.results.firstIndex { $0.id == test.id } ?? results.results.endIndex
                results.results.removeAll { $0.id == test.id }
                results.results.insert(contentsOf: test.results, at: min(position, results.results.endIndex))
                results.otherAttempts[test.id] = test.otherAttempts
            }
            results.failureLabels = failureLabels ?? [:]
            return addingSkips(to: results)
        }

        /// `results` with the tests the selection did not run, which no log names (each once: shards share them).
        func addingSkips(to results: TestRunResults) -> TestRunResults {
            var results = results
            for skipped in notSelected ?? [] where !results.results.contains(where: { $0.id == skipped.result.id }) {
                results.results.append(skipped.result)
                results.notSelected.append((skipped.result.id, TestSelection.Skip(reason: skipped.result.skipReason ?? "not selected",
                                                                                  recordedDuration: skipped.recordedDuration)))
            }
            return results
        }
    }

    /// Puts the labels and retries of `tests` into the record of the run in `output`, which was written
    /// before them (with the run's artifacts), so that `report` renders them again.
    static func recordVerdicts(_ tests: TestRunResults, in output: OutputFolder) throws {
        var run = try read(in: output)
        run.supervisor = SupervisorVerdicts(tests)
        try run.write(to: output.url.appendingPathComponent(fileName))
    }

    /// Records a run's inputs, naming the files inside `output` relative to it.
    init(packageRoot: URL, profiles: [URL], binaries: [URL], testLogs: [URL], eventStreams: [URL], testList: URL?, output: OutputFolder) {
        func name(_ url: URL) -> String {
            let path = url.standardizedFileURL.path
            return path.hasPrefix(output.url.path + "/") ? String(path.dropFirst(output.url.path.count + 1)) : path
        }
        self.packageRoot = packageRoot.path
        (self.profiles, self.binaries) = (profiles.map(name), binaries.map(name))
        (self.testLogs, self.eventStreams, self.testList) = (testLogs.map(name), eventStreams.map(name), testList.map(name))
    }

    /// Writes the record (atomically) to `url` (`run` puts it in place with its artifacts: `RunStaging`).
    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFileWriter.write(String(decoding: try encoder.encode(self), as: UTF8.self) + "\n", to: url)
    }

    /// Each test's time in the last run's `tests.json` in `output` (parameterized cases added up), for the
    /// live view's estimate; empty when there is none or it cannot be read.
    static func earlierDurations(in output: OutputFolder) -> [String: Double] {
        let url = output.url.appendingPathComponent("tests.json")
        guard let data = FileManager.default.contents(atPath: url.path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let tests = object["tests"] as? [[String: Any]] else { return [:] }
        var durations: [String: Double] = [:]
        for test in tests {
            guard let id = test["id"] as? String, let duration = test["duration"] as? Double, duration >= 0 else { continue }
            durations[id, default: 0] += duration
        }
        return durations
    }

    /// The record of the last run into `output`; a clear error when there is none or it cannot be read.
    static func read(in output: OutputFolder) throws -> LastRun {
        let url = output.url.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw LastRunError.none(folder: output.url.path) }
        guard let run = try? JSONDecoder().decode(LastRun.self, from: data), run.version == 1 else {
            throw LastRunError.unreadable(path: url.path)
        }
        return run
    }

    /// `request` with this run's files as its inputs (every one must still exist); `merge` finds the
    /// binary itself (a shard may have run on another machine), so it leaves out `binaries`.
    func inputs(for request: ReportRequest, in output: OutputFolder, binaries withBinaries: Bool = true) throws -> ReportRequest {
        func url(_ name: String) throws -> URL {
            let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : output.url.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw LastRunError.missingFile(path: url.path, record: output.url.appendingPathComponent(Self.fileName).path)
            }
            return url
        }
        var request = request
        (request.profiles, request.binaries) = (try profiles.map(url), withBinaries ? try binaries.map(url) : [])
        (request.testLogs, request.eventStreams) = (try testLogs.map(url), try eventStreams.map(url))
        request.testList = try testList.map(url)
        request.settings.negativeCounts = negativeCounts ?? .unknown
        request.supervisor = supervisor
        request.carryForward = carried
        return request
    }
}

/// Why `testscope report` without inputs found nothing to render (bad input: exit 65).
public enum LastRunError: LocalizedError, ClassifiedError, Equatable {
    case none(folder: String)
    case unreadable(path: String)
    case missingFile(path: String, record: String)

    public var errorClass: ErrorClass { .badInput }

    public var errorDescription: String? {
        switch self {
        case .none(let folder):
            return "no earlier run in \(folder) to report on; run 'testscope run' first, name the output folder of a run with --from DIR, or pass inputs (--export, --profile with --binary, --build-path, --test-log, --event-stream, --junit)"
        case .unreadable(let path):
            return "\(path) is not a run record of this Testscope version; run 'testscope run' again"
        case .missingFile(let path, let record):
            return "\(path), recorded in \(record), no longer exists; run 'testscope run' again"
        }
    }
}
