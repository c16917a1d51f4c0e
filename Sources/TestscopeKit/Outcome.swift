import TestscopeCoverage
import TestscopeFlakiness
import TestscopeImpact
import TestscopeTestResults

/// What a command found, as values: the models it built, the gate's verdict and the files it wrote;
/// the command line maps `status` to an exit status.
public struct Outcome: Sendable {
    /// The command's verdict, most serious first.
    public enum Status: Sendable, Equatable {
        case success
        /// A test failed, crashed or timed out (or the build failed, or a replayed order failed).
        case testsFailed
        /// A `--fail-under-…` threshold was not met.
        case belowThreshold
        /// Flaky tests with `--fail-on-flaky`.
        case flaky
    }

    public var status: Status = .success
    public var coverage: CoverageReport?
    public var tests: TestRunResults?
    public var flaky: FlakyReport?
    public var gateFailures: [CoverageGate.Failure] = []
    /// Every report file written, in order.
    public var written: [String] = []
    /// `run --per-test-coverage --history`: the run's test impact map, saved with its history record.
    var impactMap: ImpactMap?

    public init() {}
}
