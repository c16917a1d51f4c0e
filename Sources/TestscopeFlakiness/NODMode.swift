import Foundation
import TestscopeExecution
import TestscopeRun

/// A perturbation of a detection run — of the conditions the test process runs in, never of the test —
/// that makes flakiness which does not depend on the order show up in fewer runs (Shaker's idea). Run k
/// of a plan runs under `modes[k % modes.count]`, so a seed still replays exactly.
public enum NODMode: String, Sendable, Equatable, CaseIterable {
    /// As `swift test` runs it.
    case plain
    /// A spinning load thread per core beside the test process, each also walking a 16 MB buffer: the
    /// process loses its CPU in the middle of a test, so wall-clock thresholds and timeouts are missed.
    case stress
    /// The test process on a single CPU (Linux affinity): its threads take turns instead of running at once.
    case oneCore = "one-core"
    /// Swift Testing's tests of the order in one call with parallelization on (its default, which `flaky`'s
    /// orders turn off): tests that race each other fail. Such a run keeps no order, so no order-dependence
    /// is concluded from it.
    case parallel

    /// `plain,stress,parallel`: what the measurement on the FlakyCauses corpus supports (docs/flaky.md).
    public static let defaults: [NODMode] = [.plain, .stress, .parallel]

    /// The mode of run `index` of a plan.
    public static func mode(ofRun index: Int, in modes: [NODMode]) -> NODMode {
        modes.isEmpty ? .plain : modes[index % modes.count]
    }

    /// Modes from `plain,stress`; nil names the first word that is not one.
    public static func parse(_ text: String) -> (modes: [NODMode], unknown: String?) {
        var modes: [NODMode] = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            guard let mode = NODMode(rawValue: word) else { return (modes, word) }
            if !modes.contains(mode) { modes.append(mode) }
        }
        return (modes, nil)
    }

    /// Whether the tests of such a run ran one at a time in the order's sequence (prefixes mean something).
    public var keepsOrder: Bool { self != .parallel }

    /// What the generated entry point is told (`EntryPointSource`'s variables); the CPU of a one-core
    /// run rotates with the run, so that parallel runs do not all share one CPU.
    package func environment(run index: Int) -> [String: String?] {
        switch self {
        case .plain, .stress: return [:]
        case .oneCore: return [EntryPointSource.cpuVariable: String(index % max(1, ProcessInfo.processInfo.activeProcessorCount))]
        case .parallel: return [EntryPointSource.parallelVariable: "1"]
        }
    }
}

/// The load of the `stress` mode: one thread per core that spins and walks its own buffer (a cache's
/// worth of memory traffic), from `start` to `stop`. Our own 40 lines rather than stress-ng: no tool to
/// install, and it stops with us (Ctrl-C included).
package final class StressLoad: Sendable {
    private let running = Locked(true)
    private let group = DispatchGroup()

    /// Starts `threads` load threads (default: one per core).
    package init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        for _ in 0..<max(1, threads) {
            group.enter()
            let thread = Thread { [running, group] in
                defer { group.leave() }
                var buffer = [UInt64](repeating: 1, count: 2 << 20)  // 16 MB
                var index = 0
                var value: UInt64 = 1
                while true {
                    for _ in 0..<4096 {
                        value = value &* 6364136223846793005 &+ buffer[index]
                        buffer[index] = value
                        index = (index &+ 4099) & (buffer.count - 1)
                    }
                    if !running.withLock({ $0 }) { break }
                }
            }
            thread.start()
        }
    }

    /// Stops the threads and waits for them.
    package func stop() {
        running.withLock { $0 = false }
        group.wait()
    }
}
