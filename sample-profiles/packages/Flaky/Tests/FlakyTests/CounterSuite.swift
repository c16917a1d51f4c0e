import Flaky
import Foundation
import Testing

/// Swift Testing tests take part in the shuffles too: `incrementsTheCount()` pollutes `countStartsAtZero()`
/// (Swift Testing lists them by name, so the victim runs first in the default order).
@Suite struct CounterSuite {
    /// Victim: passes alone and in the default order, fails after `incrementsTheCount()`.
    @Test func countStartsAtZero() {
        #expect(Counter.value == 0)
    }

    /// Polluter.
    @Test func incrementsTheCount() {
        Counter.value += 1
        #expect(Counter.value >= 1)
    }
}

/// Passes in every order.
@Test func freeFunctionIsStable() {
    #expect(add(1, 1) == 2)
}

/// Runs on the main actor (checks that in-process orders do not deadlock it).
@MainActor @Test func onTheMainActor() async {
    await Task.yield()
    #expect(Thread.isMainThread)
}
