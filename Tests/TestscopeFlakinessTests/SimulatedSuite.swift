import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeTestResults

/// A model of a test suite with planted dependencies, run in memory: what a real binary would do for an
/// order, without processes. State leaks within a "process"; a crash starts a new one.
// @unchecked: a test sets the planted cases before the first run; `run` reads and updates the
// rest only under `lock`.
final class SimulatedSuite: OrderRunning, @unchecked Sendable {
    struct Victim {
        /// Any one group run before the victim (all its members, in the same process) pollutes it.
        var polluterGroups: [[String]]
        /// A cleaner run after the polluters and before the victim undoes the pollution.
        var cleaners: [String] = []
        var crashes = false
    }

    var victims: [String: Victim] = [:]
    /// Brittle test → its setters (any one is enough).
    var brittle: [String: [String]] = [:]
    var alwaysFails: Set<String> = []
    var skipped: Set<String> = []
    /// NOD tests fail with probability 1/2, from a seeded generator (deterministic for a given call order).
    var nod: Set<String> = []
    private var random: UInt64
    private let lock = NSLock()
    private(set) var runCount = 0

    init(seed: UInt64 = 1) { random = seed }

    func run(_ order: [String]) throws -> ExecutedOrder {
        lock.lock(); defer { lock.unlock() }
        runCount += 1
        var executed = ExecutedOrder(order: order)
        var process: [String] = []
        for id in order {
            let outcome = self.outcome(id, after: process)
            executed.results[id] = TestCaseResult(id: id, framework: .xctest, module: "M", suite: nil, name: id, outcome: outcome,
                                                  issues: outcome == .failed ? [TestIssue(kind: .failure, message: "\(id) failed")] : [])
            process.append(id)
            if outcome == .crashed {
                executed.processes.append(process)
                process = []
            }
        }
        if !process.isEmpty { executed.processes.append(process) }
        return executed
    }

    private func outcome(_ id: String, after prefix: [String]) -> TestOutcome {
        if skipped.contains(id) { return .skipped }
        if alwaysFails.contains(id) { return .failed }
        if nod.contains(id) {
            random = StableHash.mix(random)
            return random & 1 == 0 ? .failed : .passed
        }
        if let setters = brittle[id] { return setters.contains(where: prefix.contains) ? .passed : .failed }
        if let victim = victims[id] {
            for group in victim.polluterGroups {
                guard let last = group.map({ prefix.firstIndex(of: $0) }).reduce(Optional(-1), { a, b in b.flatMap { b in a.map { max($0, b) } } }) else { continue }
                let cleaned = victim.cleaners.contains { cleaner in (prefix.lastIndex(of: cleaner) ?? -1) > last }
                if !cleaned { return victim.crashes ? .crashed : .failed }
            }
        }
        return .passed
    }
}
