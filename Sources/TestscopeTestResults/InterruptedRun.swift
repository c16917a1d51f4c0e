import Foundation

/// The part of a Swift Testing event stream a running test process has written so far, read as it
/// grows, with the moment each test was first seen running (for time limits).
public struct EventStreamTail {
    public private(set) var stream = SwiftTestingEventStream()
    public private(set) var firstSeen: [String: Date] = [:]
    private var offset: UInt64 = 0

    public init() {}

    /// Reads the complete lines appended to `file` since the last call.
    public mutating func read(_ file: URL) {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let data = handle.readDataToEndOfFile()
        guard let lastNewline = data.lastIndex(of: 0x0A) else { return }
        let complete = data[data.startIndex...lastNewline]
        offset += UInt64(complete.count)
        for line in String(decoding: complete, as: UTF8.self).split(separator: "\n") { stream.consume(String(line)) }
        let now = Date()
        for id in stream.inFlight where firstSeen[id] == nil { firstSeen[id] = now }
    }
}

extension SwiftTestingEventStream {
    /// The in-flight test a dead process is blamed on: the test killed for its time limit, else the
    /// one whose `Suite.name` the crash's backtrace shows, else (with `orFirst`) the first in flight,
    /// else the only one in flight.
    public func blame(killed: String?, crash: CrashEvidence?, orFirst: Bool) -> String? {
        let inFlight = self.inFlight
        guard !inFlight.isEmpty else { return nil }
        if let killed { return killed }
        let named = inFlight.first { id in
            let parts = SwiftTestingEventStream.split(id)
            let needle = [parts.suite, parts.name].compactMap { $0 }.joined(separator: ".")
            return crash?.frames.contains { $0.contains(needle) } ?? false
        }
        return named ?? (orFirst || inFlight.count == 1 ? inFlight.first : nil)
    }

    /// The blamed test's result: `timed-out` (killed after `timeout`) or `crashed`, with the evidence.
    public func interruptedResult(_ id: String, timedOut: Bool, crash: CrashEvidence?, signal: Int?,
                                  timeout: Double?, firstSeen: Date?) -> TestCaseResult {
        var evidence = crash ?? CrashEvidence()
        if evidence.signal == nil { evidence.signal = timedOut ? 9 : signal }
        if timedOut { evidence.reason = "killed after the \(timeout.map { "\($0) s" } ?? "") timeout" }
        return interruptedResult(id, outcome: timedOut ? .timedOut : .crashed, crash: evidence,
                                 duration: timedOut ? timeout : firstSeen.map { Date().timeIntervalSince($0) })
    }
}
