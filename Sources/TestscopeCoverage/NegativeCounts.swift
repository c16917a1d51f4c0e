import TestscopeExecution

/// What the run tells about lines whose counter expression went negative (llvm-cov: 2^64 − n,
/// `18.4E`), so that the warning names a cause the run has not ruled out. Two causes give them:
/// the compiler's coverage mapping (deterministic: Swift maps `for x in xs where cond(x) { return … }`
/// so that the code after the loop gets entry − iterations, below zero whenever the filter skips
/// an element), and lost increments of non-atomic counters updated from two threads at once — tests
/// running in parallel, or one test's own threads (so only atomic counters rule a race out).
public enum NegativeCountCause: String, Codable, Sendable, Equatable {
    /// The build updated its counters atomically: no increment was lost.
    case atomicCounters = "atomic-counters"
    /// A build without atomic counters whose tests ran one at a time: a test's own threads can still race.
    case serialTests = "serial-tests"
    /// A build without atomic counters whose tests ran in parallel: a race is possible.
    case parallelTests = "parallel-tests"
    /// Not known how the profile was recorded (`report` of profiles or exports it did not record).
    case unknown

    /// How `run` records it: only atomic counters rule a race out.
    public init(atomicCounters: Bool, parallelTests: Bool) {
        self = atomicCounters ? .atomicCounters : parallelTests ? .parallelTests : .serialTests
    }

    /// The one warning for every file's lines of unknown count (nil when there are none), naming them
    /// (the first files, as `path:lines`) and the cause; `coverage.json`'s `unreliableLines` has them all.
    public func warning(for files: [FileSummary]) -> Diagnostic? {
        let places = files.compactMap { file -> (String, [ClosedRange<UInt32>])? in
            let ranges = file.unreliableRanges
            return ranges.isEmpty ? nil : (file.relativePath, ranges)
        }
        guard !places.isEmpty else { return nil }
        let lines = places.reduce(0) { $0 + $1.1.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }
        let shown = 4
        var list = places.prefix(shown).map { "\($0.0):\($0.1.lineRangesText)" }.joined(separator: "; ")
        if places.count > shown { list += "; and \(places.count - shown) more files (coverage.json lists them)" }
        let what = lines == 1 ? "1 line has an unknown count" : "\(lines) lines have an unknown count"
        let mapping = "the compiler's coverage mapping gives them a negative count (a counter expression below zero, "
            + "as after `for … where … { return … }`; llvm-cov shows 18.4E), the same in every run"
        let shownAs = "shown as unknown, not counted as covered"
        switch self {
        case .atomicCounters:
            return .warning("\(what) (\(list)): \(mapping); not a counter race: the counters were updated atomically; \(shownAs)")
        case .serialTests, .parallelTests:
            let who = self == .serialTests
                ? "the tests ran one at a time, but without atomic counters a test's own threads lose increments"
                : "tests ran in parallel without atomic counters and lost increments"
            return .warning("\(what) (\(list)): a counter expression went negative: either the compiler's coverage mapping "
                + "(as after `for … where … { return … }`; the same in every run) or a counter race (\(who); varies between runs); "
                + "\(shownAs); `testscope run` with atomic counters (its default) rules a race out")
        case .unknown:
            return .warning("\(what) (\(list)): a counter expression went negative: the compiler's coverage mapping "
                + "(as after `for … where … { return … }`; the same in every run) or, in a build without atomic counters, "
                + "a counter race; \(shownAs)")
        }
    }
}
