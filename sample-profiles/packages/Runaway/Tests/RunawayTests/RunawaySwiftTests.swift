import Foundation
import Runaway
import Testing

/// RUNAWAY_ORPHAN_ST=1 makes `leavesAProcessBehind()` start `/bin/sleep 600` and return.
@Test func halvesOdd() {
    #expect(half(7) == 3)
}

/// 0.1 s of work on each side of the start, as in `RunawayXCTests.testC_leavesAProcessBehind`.
@Test func leavesAProcessBehind() throws {
    if ProcessInfo.processInfo.environment["RUNAWAY_ORPHAN_ST"] == "1" {
        Thread.sleep(forTimeInterval: 0.1)
        #expect(try startBackgroundSleep(seconds: 600) > 0)
        Thread.sleep(forTimeInterval: 0.1)
    }
}
