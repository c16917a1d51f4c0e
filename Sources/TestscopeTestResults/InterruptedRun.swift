import Foundation

extension SwiftTestingEventStream {
    /// The in-flight test a dead process is blamed on: the test killed for its time limit, else the
    /// one whose `Suite.name` the crash's backtrace shows, else (with `orFirst`) the first in flight,
    /// else the only one in flight.
    package func blame(killed: String?, crash: CrashEvidence?, orFirst: Bool) -> String? {
        let inFlight = self.inFlight
        guard !inFlight.isEmpty else { return nil }
        if let killed { return killed }
        let named = inFlight.first { id in crash.map { Self.crash($0, names: id) } ?? false }
        return named ?? (orFirst || inFlight.count == 1 ? inFlight.first : nil)
    }

    /// True when the crash's backtrace shows the test's `Suite.name`.
    package static func crash(_ crash: CrashEvidence, names id: String) -> Bool {
        let parts = split(id)
        let needle = [parts.suite, parts.name].compactMap { $0 }.joined(separator: ".")
        return crash.frames.contains { $0.contains(needle) }
    }
}

extension CrashEvidence {
    /// The one wording of a test killed for its time limit: `killed after the 2 s timeout` (`2.5 s`;
    /// `killed after the timeout` when the limit is unknown), for XCTest and Swift Testing alike.
    package static func timeoutReason(_ timeout: Double?) -> String {
        guard let timeout else { return "killed after the timeout" }
        let seconds = timeout == timeout.rounded() ? "\(Int(timeout)) s" : String(format: "%.1f s", timeout)
        return "killed after the \(seconds) timeout"
    }
}
