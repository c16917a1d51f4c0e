import Foundation

/// Data-parallel loops on every core (the coverage engine's only form of parallelism).
public enum Parallel {
    /// `body(0..<count)` on every core, results in index order.
    public static func map<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
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
    /// chunk, not per item), results in index order.
    public static func chunkedMap<T>(_ count: Int, minimumChunk: Int = 256, _ body: (Int) -> T) -> [T] {
        let chunks = max(1, min(count / max(1, minimumChunk), 4 * ProcessInfo.processInfo.activeProcessorCount))
        guard chunks > 1 else { return (0..<count).map(body) }
        let parts = map(chunks) { chunk -> [T] in
            let range = (count * chunk / chunks)..<(count * (chunk + 1) / chunks)
            return range.map(body)
        }
        return parts.flatMap { $0 }
    }

    /// Each slot is written by exactly one iteration, and read only after all of them finished.
    private struct UncheckedBox<T>: @unchecked Sendable {
        let results: UnsafeMutableBufferPointer<T?>
        let body: (Int) -> T
    }
}
