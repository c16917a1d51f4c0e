import Foundation

/// Data-parallel loops on every core (the coverage engine's only form of parallelism).
package enum Parallel {
    /// `body(0..<count)` on every core, results in index order.
    package static func map<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
        guard count > 1 else { return (0..<count).map(body) }
        return withoutActuallyEscaping(body) { body in
            let results = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
            results.initialize(repeating: nil)
            defer { results.deallocate() }
            let box = UncheckedBox(results: results, body: body)
            DispatchQueue.concurrentPerform(iterations: count) { i in box.results[i] = box.body(i) }
            let values = results.map { $0! }
            _ = results.deinitialize()
            return values
        }
    }

    /// `body` over `0..<count` cut into one contiguous chunk per task (cheap items: one dispatch per
    /// chunk, not per item), results in index order. Inlinable, so that the loop over items is
    /// specialized where it is called: generic, it cost about 1,500 instructions an item (a
    /// mapping's 35,457 names hashed, then their display names: 4 % of a JSON report at 400 files).
    @inlinable
    package static func chunkedMap<T>(_ count: Int, minimumChunk: Int = 256, _ body: (Int) -> T) -> [T] {
        let ranges = chunks(count, minimumChunk: minimumChunk)
        guard ranges.count > 1 else { return (0..<count).map(body) }
        return map(ranges.count) { ranges[$0].map(body) }.flatMap { $0 }
    }

    /// `0..<count` cut into contiguous ranges, a few per core, none under `minimumChunk` items (one
    /// range when there are few): for work that keeps state per chunk.
    package static func chunks(_ count: Int, minimumChunk: Int = 256) -> [Range<Int>] {
        let parts = max(1, min(count / max(1, minimumChunk), 4 * processorCount))
        return (0..<parts).map { (count * $0 / parts)..<(count * ($0 + 1) / parts) }
    }

    /// The processors this process may run on, asked once: Foundation asks the system each time
    /// (`sched_getaffinity` and the cgroup's CPU limit), on the calling thread between two loops; at
    /// 400 files that was 0.5 % of a text report's samples, all of them on the main thread.
    package static let processorCount = ProcessInfo.processInfo.activeProcessorCount

    /// Each slot is written by exactly one iteration, and read only after all of them finished.
    private struct UncheckedBox<T>: @unchecked Sendable {
        let results: UnsafeMutableBufferPointer<T?>
        let body: (Int) -> T
    }
}
