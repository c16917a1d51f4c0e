import Foundation
import TestscopeExecution
import TestscopeTestResults

/// The part of a Swift Testing event stream a running test process has written so far, read as it
/// grows, with the moment each test was first seen running (for time limits).
struct EventStreamTail {
    private(set) var stream = SwiftTestingEventStream()
    private(set) var firstSeen: [String: Date] = [:]
    private var offset: UInt64 = 0
    /// How many of the stream's finished tests were already handed to the live view.
    private var announced = 0

    /// Reads the complete lines appended to `file` since the last call; returns what a live view
    /// has not heard yet (tests that started, then the results of tests that ended).
    @discardableResult
    mutating func read(_ file: URL) -> [LiveTestEvent] {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return [] }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let data = handle.readDataToEndOfFile()
        guard let lastNewline = data.lastIndex(of: 0x0A) else { return [] }
        let complete = data[data.startIndex..<lastNewline]
        offset += UInt64(complete.count + 1)
        for line in String(decoding: complete, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) { stream.consume(line) }
        let now = Date()
        var events: [LiveTestEvent] = []
        for id in stream.inFlight where firstSeen[id] == nil {
            firstSeen[id] = now
            events.append(.started(SwiftTestingEventStream.split(id).specifier))
        }
        let finished = stream.finishedOrder
        for id in finished[announced...] { events += stream.results(ofTest: id).map(LiveTestEvent.finished) }
        announced = finished.count
        return events
    }
}

/// What a live view hears from a running test process: a test started (its id as `swift test list`
/// names it), or a test (or parameterized case) finished with its result.
package enum LiveTestEvent: Sendable {
    case started(String)
    case finished(TestCaseResult)
}

/// One running test process as the output readers and the watchdog see it: the live parsers, when
/// the running tests started, and whether the watchdog killed it (all behind one lock).
final class LiveProcess: Sendable {
    private struct State {
        var xctest: XCTestConsoleParser
        var xcSince: Date?
        var tail = EventStreamTail()
        var pid: Int32 = 0
        var killed: (id: String, framework: TestFramework)?
        var lastLines: [String] = []
        /// XCTest's tests by XCTest's own times (Swift Testing's come from the stream's instants).
        var xcTimeline = TestTimeline()
        var xcStarted: Date?
    }

    private let state: Locked<State>
    private let events: URL?
    private let timeout: Double?
    private let note: (@Sendable (String) -> Void)?
    private let onTest: (@Sendable (LiveTestEvent) -> Void)?

    init(moduleForClass: XCTestModules, events: URL?, timeout: Double?, note: (@Sendable (String) -> Void)?,
         onTest: (@Sendable (LiveTestEvent) -> Void)? = nil) {
        state = Locked(State(xctest: XCTestConsoleParser(moduleForClass: moduleForClass, live: true)))
        self.events = events
        self.timeout = timeout
        self.note = note
        self.onTest = onTest
    }

    /// Hands events to the live view outside the lock (the view writes to the terminal).
    private func announce(_ events: [LiveTestEvent]) {
        guard let onTest else { return }
        for event in events { onTest(event) }
    }

    func started(pid: Int32) {
        state.withLock { $0.pid = pid }
    }

    /// After the process was reaped: its pid may be reused, so nothing may signal it any more.
    func ended() {
        state.withLock { $0.pid = 0 }
    }

    func consume(_ line: String) {
        let announcing = onTest != nil
        let events: [LiveTestEvent] = state.withLock { state in
            let reported = state.xctest.results.count
            if !line.isEmpty { state.lastLines.append(line); if state.lastLines.count > 10 { state.lastLines.removeFirst() } }
            let before = state.xctest.running
            // `Test Case '…' started at <local time>`: the start is taken when the line arrives instead of
            // parsing XCTest's stamp with a DateFormatter (one per line was most of the parsing time of a
            // run); the stamp, read by hand, dates the test on the timeline.
            var stamp: Date?
            if line.hasPrefix("Test Case '"), let at = line.range(of: "' started at ") {
                stamp = Self.localTime(line[at.upperBound...])
                state.xctest.consume(String(line[..<at.lowerBound]) + "' started")
            } else {
                state.xctest.consume(line)
            }
            if state.xctest.running != before {
                if let before {
                    let name = display(before)
                    let duration = state.xctest.results.last { $0.suite == before.className && $0.name == before.method }?.duration
                    let end = state.xcStarted.flatMap { start in duration.map { start.addingTimeInterval($0) } }
                    state.xcTimeline.ended(name, at: end ?? Date())
                }
                if let running = state.xctest.running {
                    state.xcSince = Date()
                    state.xcStarted = stamp ?? Date()
                    state.xcTimeline.started(display(running), at: state.xcStarted!)
                }
            }
            guard announcing else { return [] }
            var events = state.xctest.results[reported...].map(LiveTestEvent.finished)
            if state.xctest.running != before, let running = state.xctest.running { events.append(.started(display(running))) }
            return events
        }
        announce(events)
    }

    /// XCTest's `2026-11-21 08:17:18.667` (local time) without a DateFormatter.
    static func localTime(_ text: Substring) -> Date? {
        let parts = text.split { $0 == "-" || $0 == " " || $0 == ":" || $0 == "." }.compactMap { Int($0) }
        guard parts.count == 7 else { return nil }
        var time = tm()
        (time.tm_year, time.tm_mon, time.tm_mday) = (Int32(parts[0] - 1900), Int32(parts[1] - 1), Int32(parts[2]))
        (time.tm_hour, time.tm_min, time.tm_sec, time.tm_isdst) = (Int32(parts[3]), Int32(parts[4]), Int32(parts[5]), -1)
        let seconds = mktime(&time)
        return seconds == -1 ? nil : Date(timeIntervalSince1970: Double(seconds) + Double(parts[6]) / 1000)
    }

    /// `running`'s id: the parser gave it its module.
    private func display(_ name: XCTestName) -> String {
        "\(name.module.map { $0 + "." } ?? "")\(name.className)/\(name.method)"
    }

    /// A warning for each test that left processes running when its process ended (they were killed):
    /// the test that was running when each started.
    func leftBehind(_ leftovers: [ProcessTree.Leftover], binary: String) -> [Diagnostic] {
        guard !leftovers.isEmpty else { return [] }
        let timeline = state.withLock { state in
            if let events { state.tail.read(events) }
            return state.xcTimeline + state.tail.stream.timeline
        }
        var byTests: [[String]: [ProcessTree.Leftover]] = [:]
        for leftover in leftovers { byTests[leftover.started.map { timeline.tests(runningWithin: $0) } ?? [], default: []].append(leftover) }
        return byTests.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { tests, processes in
            let who = tests.isEmpty ? "a test of \(binary)" : tests.joined(separator: " or ")
            let what = processes.map { "pid \($0.pid): \($0.command)" }.joined(separator: "; ")
            return .warning("\(who) left \(processes.count == 1 ? "a process" : "\(processes.count) processes") running after its test process ended "
                + "(\(what)); Testscope killed \(processes.count == 1 ? "it" : "them") — stop what a test starts before it returns")
        }
    }

    /// The watchdog's tick: reads new stream records and kills the process when a test ran past the limit.
    func tick() {
        var announced: [LiveTestEvent] = []
        defer { announce(announced) }
        state.withLock { state in
            if let events { announced = state.tail.read(events) }
            guard let timeout, state.killed == nil, state.pid > 0 else { return }
            if let running = state.xctest.running, let since = state.xcSince, Date().timeIntervalSince(since) > timeout {
                killForTimeout(&state, (running.key, .xctest), shown: running.key, timeout: timeout)
                return
            }
            for id in state.tail.stream.inFlight {
                if let since = state.tail.firstSeen[id], Date().timeIntervalSince(since) > timeout {
                    killForTimeout(&state, (id, .swiftTesting), shown: SwiftTestingEventStream.split(id).specifier, timeout: timeout)
                    return
                }
            }
        }
    }

    private func killForTimeout(_ state: inout State, _ test: (id: String, framework: TestFramework), shown: String, timeout: Double) {
        state.killed = test
        note?("\(shown) exceeded the \(timeout) s test timeout; killing the test process")
        ProcessTree.killGroupAndDescendants(leader: state.pid)
    }

    /// What the ended process reported, with the test it is blamed on when it died early: the XCTest
    /// test it was running, else the Swift Testing test `SwiftTestingEventStream.blame` picks.
    func collect(_ result: ProcessResult, tests: [String], blameFirstInFlight: Bool) -> SupervisedProcess {
        var announced: [LiveTestEvent] = []
        defer { announce(announced) }
        return state.withLock { state in
            if let events { announced = state.tail.read(events) }
            let signal = result.terminatedBySignal ? Int(result.status) : nil
            let killed = state.killed
            let xcKilled = killed?.framework == .xctest
            let xcRunning = state.xctest.running
            let outsideCrash = state.xctest.crashOutsideTests
            let xcReported = state.xctest.results.count
            state.xctest.finish(signal: xcKilled ? 9 : signal, timedOut: xcKilled, timeout: timeout)
            var results = state.xctest.results
            // The test a crash or a kill ended (XCTest's) is a failure the live view shows too.
            if onTest != nil { announced += results[xcReported...].map(LiveTestEvent.finished) }
            var blamed = xcRunning.flatMap { running in
                results.last { $0.suite == running.className && $0.name == running.method }?.id
            }
            let stream = state.tail.stream
            results += stream.results()
            let inFlight = stream.inFlight
            let killedST = killed?.framework == .swiftTesting ? killed?.id : nil
            if let culprit = stream.blame(killed: killedST, crash: outsideCrash, orFirst: blameFirstInFlight) {
                var evidence = outsideCrash ?? CrashEvidence()
                if evidence.signal == nil { evidence.signal = killedST != nil ? 9 : signal }
                if killedST != nil { evidence.reason = CrashEvidence.timeoutReason(timeout) }
                let since = state.tail.firstSeen[culprit]
                results.append(stream.interruptedResult(culprit, outcome: killedST != nil ? .timedOut : .crashed, crash: evidence,
                                                        duration: killedST != nil ? timeout : since.map { Date().timeIntervalSince($0) }))
                blamed = culprit
                if onTest != nil, let last = results.last { announced.append(.finished(last)) }
            }
            let interrupted = signal != nil || killed != nil || xcRunning != nil || !inFlight.isEmpty
                || (stream.runStarted && !stream.runEnded)
            return SupervisedProcess(tests: tests, results: results, blamed: blamed, interrupted: interrupted,
                                     timedOut: killed != nil, crash: outsideCrash, result: result, lastLines: state.lastLines,
                                     warnings: events.flatMap { stream.skippedWarning(file: $0.path) }.map { [$0] } ?? [])
        }
    }
}
