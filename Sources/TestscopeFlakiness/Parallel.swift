import Foundation

/// Runs independent work items on at most `jobs` threads; results keep the items' order, so what
/// comes out does not depend on `jobs`.
enum Parallel {
    static func map<T>(_ count: Int, jobs: Int, _ body: @escaping (Int) throws -> T) throws -> [T] {
        guard count > 0 else { return [] }
        let box = ParallelBox<T>(count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(jobs, count)) {
            group.enter()
            Thread {
                defer { group.leave() }
                while let index = box.take() {
                    do { box.store(index, try body(index)) } catch { box.fail(error) }
                }
            }.start()
        }
        group.wait()
        if let error = box.error { throw error }
        return box.results.map { $0! }
    }
}

/// The shared state of `Parallel.map`: the next index, the results, the first error.
final class ParallelBox<T>: @unchecked Sendable {
    private let lock = NSLock()
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
        lock.lock(); defer { lock.unlock() }
        guard next < count, error == nil else { return nil }
        next += 1
        return next - 1
    }

    func store(_ index: Int, _ value: T) { lock.lock(); results[index] = value; lock.unlock() }
    func fail(_ error: Error) { lock.lock(); if self.error == nil { self.error = error }; lock.unlock() }
}
