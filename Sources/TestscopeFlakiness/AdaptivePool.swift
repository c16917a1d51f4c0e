import Foundation

/// Runs independent work items on `jobs` threads, and on up to `maxJobs` while the machine's CPUs sit
/// idle; results keep the items' order, so what comes out does not depend on the number of threads.
enum AdaptivePool {
    /// The results in item order and the largest number of threads that ran at once.
    /// `idleFraction` reports the share of CPU time idle since its last call (nil: unknown); by
    /// default `/proc/stat` is sampled. Tests pass their own, so that what they check does not
    /// depend on the machine's load.
    static func map<T>(_ count: Int, jobs: Int, maxJobs: Int? = nil, idleFraction: (() -> Double?)? = nil,
                       _ body: @escaping @Sendable (Int) throws -> T) throws -> (results: [T], peakJobs: Int) {
        guard count > 0 else { return ([], 0) }
        let box = ParallelBox<T>(count)
        let group = DispatchGroup()
        let startWorker = {
            group.enter()
            Thread {
                defer { group.leave() }
                while let index = box.take() {
                    do { box.store(index, try body(index)) } catch { box.fail(error) }
                }
            }.start()
        }
        var started = max(1, min(jobs, count))
        for _ in 0..<started { startWorker() }
        let ceiling = min(max(maxJobs ?? started, started), count)
        var sampler = CPUIdleSampler()
        let probe = idleFraction ?? { sampler?.idleFraction() }
        if ceiling > started {
            // Test processes spend much of their time waiting (XCTest hops threads for every test), so a
            // core per run leaves CPU unused: add a run while at least a quarter of the CPUs were idle.
            // Each run is taken to use the CPU share the running ones used on average.
            let cpus = Double(ProcessInfo.processInfo.activeProcessorCount)
            while started < ceiling, box.waitForPending(timeout: 0.1) {
                guard let idle = probe(), idle >= 0.25 else { continue }
                let perRun = max((1 - idle) * cpus / Double(started), 0.05)
                let more = min(max(Int(idle * cpus / perRun), 1), ceiling - started)
                for _ in 0..<more { startWorker() }
                started += more
            }
        }
        group.wait()
        if let error = box.error { throw error }
        return (box.results.map { $0! }, started)
    }

    /// The work of `map` without the thread count.
    static func map<T>(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
        try map(count, jobs: jobs, maxJobs: nil, body).results
    }
}

/// The fraction of CPU time spent idle between two readings of `/proc/stat` (Linux only).
struct CPUIdleSampler {
    private var last: (idle: UInt64, total: UInt64)

    init?() {
        guard let first = Self.read() else { return nil }
        last = first
    }

    /// Idle time ÷ all time since the last call, or nil when no time passed or `/proc/stat` is unreadable.
    mutating func idleFraction() -> Double? {
        guard let now = Self.read(), now.total > last.total else { return nil }
        defer { last = now }
        return Double(now.idle &- last.idle) / Double(now.total - last.total)
    }

    /// The first line of `/proc/stat`: `cpu user nice system idle iowait irq softirq steal …` in ticks.
    private static func read() -> (idle: UInt64, total: UInt64)? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n", maxSplits: 1).first, line.hasPrefix("cpu ") else { return nil }
        let fields = line.split(separator: " ").dropFirst().prefix(8).compactMap { UInt64($0) }
        guard fields.count >= 5 else { return nil }
        return (fields[3] + fields[4], fields.reduce(0, +))
    }
}

/// The shared state of `AdaptivePool.map`: the next index, the results, the first error.
// @unchecked: the workers read and write every stored var only while `condition` is locked, and
// `map` reads `results`/`error` only after all workers left the group (the condition variable lets
// the sampler wait for a finished item, which `Locked` cannot).
final class ParallelBox<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var next = 0
    private let count: Int
    private(set) var results: [T?]
    private(set) var error: Error?

    init(_ count: Int) {
        self.count = count
        results = Array(repeating: nil, count: count)
    }

    /// The next index to work on, or nil when all are taken or an item failed.
    func take() -> Int? {
        condition.lock(); defer { condition.unlock() }
        guard next < count, error == nil else { return nil }
        next += 1
        return next - 1
    }

    /// Waits up to `timeout` seconds (less when an item finishes); true while items are still untaken.
    func waitForPending(timeout: TimeInterval) -> Bool {
        condition.lock(); defer { condition.unlock() }
        guard next < count, error == nil else { return false }
        _ = condition.wait(until: Date(timeIntervalSinceNow: timeout))
        return next < count && error == nil
    }

    func store(_ index: Int, _ value: T) { condition.lock(); results[index] = value; condition.broadcast(); condition.unlock() }
    func fail(_ error: Error) { condition.lock(); if self.error == nil { self.error = error }; condition.unlock() }
}
