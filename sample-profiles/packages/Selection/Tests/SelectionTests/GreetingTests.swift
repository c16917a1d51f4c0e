import Foundation
import Selection
import Testing

@Suite struct GreetingSuite {
    @Test func greets() { #expect(greet("Ada") == "Hello, Ada!") }
    @Test func shouts() { #expect(greet("Ada", shouting: true) == "HELLO, ADA!") }
}

@Suite struct ChanceSuite {
    /// Fails on its first attempt when SELECTION_CHANCE_DIR is set, passes on every later one.
    @Test func passesOnSecondAttempt() {
        let folder = ProcessInfo.processInfo.environment["SELECTION_CHANCE_DIR"]
        #expect(!firstAttempt("swift-testing", markerFolder: folder), "failed by chance on the first attempt")
    }
}
