import Exits
import Testing

/// Swift Testing exit tests: each `#expect(processExitsWith:)` runs its body in a child process that
/// Swift Testing starts from this same test binary, found again by the environment it is given.
@Suite struct ExitSuite {
    @Test func beforeTheExitTests() {
        #expect(Nesting.depth(of: "[a][b]") == 1)
    }

    /// hummingbird's `testOverflow()`: deep input must end the child normally, not overflow its stack.
    /// The child's output shows that its body ran (a child that ran no test would exit 0 too).
    @Test func deepInputExitsCleanly() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let deep = String(repeating: "[a", count: 800) + String(repeating: "]", count: 800)
            print("depth:", Nesting.depth(of: deep).map(String.init) ?? "refused")
        }
        #expect(result.map { String(decoding: $0.standardOutputContent, as: UTF8.self) }?.contains("depth: refused") == true)
    }

    @Test func givingUpExitsWithAFailure() async {
        await #expect(processExitsWith: .exitCode(3)) {
            Nesting.giveUp()
        }
    }

    @Test func afterTheExitTests() {
        #expect(Nesting.depth(of: "[[a]]") == 2)
    }
}
