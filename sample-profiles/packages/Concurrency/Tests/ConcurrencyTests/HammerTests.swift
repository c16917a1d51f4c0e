import Foundation
import Testing
@testable import Concurrency
import Stripped

/// Swift Testing runs these tests in parallel (the default, no `.serialized`), and each test
/// fans out further: a task group of tasks on the cooperative pool (one thread per core) and,
/// since a 2-core machine busy with other work seldom runs two pool threads at the same moment,
/// also plain OS threads. More threads than cores means threads get preempted at random points,
/// some of them between the load and the store of the entry counter's increment: every
/// increment other threads make meanwhile is then lost. Together they hammer `Tally.hit` on one
/// shared instance.
let shared = Tally()

/// 4 tests x (4 tasks + 16 threads) x 150 000 = 12 M calls of `hit` (about 3 s). Tuned on a
/// 2-core machine under load: with 4 threads per test about 1 run in 8 lost no increment,
/// with 16 threads about 1 in 20 at 100 000 calls; see sample-profiles/README.md.
let callsPerTask = 150_000
let threadsPerTest = 16

func spin() {
    for i in 0..<callsPerTask { shared.hit(i & 7) }
    _ = unlockedSpin(16)
}

func hammer(tasks width: Int) async {
    let threads = (0..<threadsPerTest).map { _ in Thread { spin() } }
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<width {
            group.addTask { spin() }
        }
        for thread in threads { thread.start() }
    }
    // Wait for the threads without blocking a pool thread.
    while threads.contains(where: { !$0.isFinished }) {
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
}

@Test func hammerA() async { await hammer(tasks: 4) }
@Test func hammerB() async { await hammer(tasks: 4) }
@Test func hammerC() async { await hammer(tasks: 4) }
@Test func hammerD() async { await hammer(tasks: 4) }

@Test func asyncSum() async {
    #expect(await sumAsync(Array(0..<200)) == 19_900)
}

@Test func deferRuns() {
    var log: [String] = []
    #expect(withCleanup(&log, early: true) == 1)
    #expect(log == ["start", "cleanup"])
}

@Test func genericTwoTypes() {
    #expect(largest([3, 9, 2]) == 9)          // T == Int
    #expect(largest(["b", "c", "a"]) == "c")  // T == String
}

@Test func skippedRegions() {
    #expect(platformName() == "linux")
}

@Test func optimizedTarget() {
    #expect(Stripped.keptByOptimizer(2) == 6)
}
