import FlakyCauses
import Foundation
import XCTest

// Flaky whatever the order (truth.json gives each one's cause). Their thresholds are those of real
// suites: generous on a quiet machine, missed when the process loses its CPU.

/// Wall-clock thresholds and timeouts.
final class TimingTests: XCTestCase {
    /// A threshold on elapsed time: 60 units of work take about 8 ms in the instrumented build `testscope flaky` makes, here.
    func testParsesWithinBudget() {
        let start = DispatchTime.now()
        _ = busyWork(60)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        XCTAssertLessThan(elapsed, 0.012, "parsing should take under 12 ms")
    }

    /// An expectation fulfilled by another thread, with a short timeout.
    func testCallbackBeforeTimeout() {
        let done = expectation(description: "callback")
        Thread {
            _ = busyWork(60)
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 0.012)
    }
}

/// A data race: two threads, started together, increment one counter without a lock.
final class RaceTests: XCTestCase {
    func testConcurrentIncrements() {
        let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        counter.initialize(to: 0)
        defer { counter.deallocate() }
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                ready.signal()
                go.wait()
                for _ in 0..<20 {
                    let seen = counter.pointee
                    _ = busyWork(0)
                    counter.pointee = seen + 1
                }
                group.leave()
            }.start()
        }
        ready.wait()
        ready.wait()
        go.signal()
        go.signal()
        group.wait()
        XCTAssertEqual(counter.pointee, 40)
    }
}

/// Unstructured tasks assumed to finish in the order they were started.
final class TaskOrderTests: XCTestCase {
    func testTasksFinishInOrder() async {
        actor Log { var entries: [Int] = []; func add(_ n: Int) { entries.append(n) } }
        let log = Log()
        let first = Task { _ = busyWork(1); await log.add(1) }
        let second = Task { await log.add(2) }
        await first.value
        await second.value
        let entries = await log.entries
        XCTAssertEqual(entries, [1, 2])
    }
}

/// Hash order: Swift seeds `Hasher` per process, so a `Set`'s iteration order changes between runs.
final class HashOrderTests: XCTestCase {
    func testFirstTagIsSwift() {
        let tags: Set = ["swift", "linux"]
        XCTAssertEqual(tags.first, "swift")
    }
}

/// Randomness without a seed.
final class RandomTests: XCTestCase {
    func testDieNeverRollsOne() {
        XCTAssertNotEqual(Int.random(in: 1...12), 1)
    }
}

/// Stable, also under load: generous limits.
final class StableTests: XCTestCase {
    func testAddition() { XCTAssertEqual(2 + 2, 4) }

    func testSorting() { XCTAssertEqual([3, 1, 2].sorted(), [1, 2, 3]) }

    func testGenerousTimeout() {
        let done = expectation(description: "callback")
        DispatchQueue.global().async { done.fulfill() }
        wait(for: [done], timeout: 10)
    }

    func testSetContents() {
        let tags: Set = ["swift", "linux"]
        XCTAssertEqual(tags.sorted(), ["linux", "swift"])
    }

    func testAwaitsATask() async {
        let value = await Task { busyWork(1) }.value
        XCTAssertNotEqual(value, 0)
    }
}
