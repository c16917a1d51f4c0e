import Foundation
import Testing
import Crashy

@Suite struct CrashySuite {
    @Test func passes() {
        #expect(Crashy.double(1) == 2)
    }

    @Test("Doubles every value", arguments: [1, 2, 3])
    func doubles(value: Int) {
        #expect(Crashy.double(value) == value + value)
        #expect(Crashy.double(value) != 4, "two is special")
    }

    @Test(.disabled("not ready yet")) func disabled() {}

    @Test func knownIssue() {
        withKnownIssue("tracked elsewhere") {
            #expect(Crashy.double(2) == 5)
        }
    }

    /// Force-unwraps nil (a crash) when CRASHY_CRASH=1.
    @Test func unwrapsNil() {
        let crash = ProcessInfo.processInfo.environment["CRASHY_CRASH"] == "1"
        #expect(Crashy.unwrap(crash ? nil : 0) == 0)
    }
}

@Test func freeFunctionFails() throws {
    #expect(Crashy.double(5) == 11)
}
