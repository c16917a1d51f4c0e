import Durations
import Foundation
import Testing

// The sleeps are the expected durations: testscope's tests compare each test's recorded duration
// with the number in its name.

/// Blocking tests hold a thread of Swift Testing's pool (2 threads on 2 cores): the other tests'
/// end events then wait for a thread, so their recorded durations grow. Only with DURATIONS_BLOCK=1
/// (record.sh's `blocking` variant), so that the default recording shows durations of tests that
/// only wait, in parallel.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DURATIONS_BLOCK"] != nil))
struct Blocking {
    @Test func blocks200ms() { blockFor(0.2) }
    @Test func blocks400ms() { blockFor(0.4) }
    @Test func blocks800ms() { blockFor(0.8) }
}

@Suite struct Waiting {
    @Test func waits300ms() async throws { try await wait(0.3) }
    @Test func waits600ms() async throws { try await wait(0.6) }
    @Test func waits1200ms() async throws { try await wait(1.2) }
    @Test(arguments: [100, 500]) func waitsMilliseconds(_ ms: Int) async throws { try await wait(Double(ms) / 1000) }
}
