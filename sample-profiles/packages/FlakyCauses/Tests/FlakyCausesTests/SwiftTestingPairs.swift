import FlakyCauses
import Foundation
import Testing

/// A static counter shared by a Swift Testing suite: `increments()` pollutes `startsAtZero()`.
@Suite struct TallySuite {
    /// Victim.
    @Test func startsAtZero() { #expect(Tally.count == 0) }
    /// Polluter.
    @Test func increments() {
        Tally.count += 1
        #expect(Tally.count >= 1)
    }
}

/// Two tests that write one static and read it back: they fail only when Swift Testing runs them at
/// the same time (its default is parallel; `testscope flaky`'s orders run one test at a time).
@Suite struct ScratchSuite {
    @Test func ownedByA() {
        Scratch.owner = "a"
        for _ in 0..<20 { _ = busyWork(1) }
        #expect(Scratch.owner == "a")
    }

    @Test func ownedByB() {
        Scratch.owner = "b"
        for _ in 0..<20 { _ = busyWork(1) }
        #expect(Scratch.owner == "b")
    }
}
