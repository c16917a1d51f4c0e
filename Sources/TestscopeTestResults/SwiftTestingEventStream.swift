import Foundation
import TestscopeExecution

/// Reads Swift Testing's JSON event stream (`--event-stream-output-path`, JSON Lines; version 0 or
/// "6.3.0"). Events may arrive out of order: everything is attributed by test id (and test case
/// id), never by line order. Each parameterized case becomes its own result.
package struct SwiftTestingEventStream {
    struct TestRecord {
        var id: String
        var name: String
        var displayName: String?
        var isSuite: Bool
        var location: SourceLocation?
        /// The ids of its cases in the order of its arguments, when the stream lists them.
        var caseIDs: [String] = []
    }

    struct CaseState {
        var arguments: String?
        var startedAt: Date?
        var started: Double?
        var ended: Double?
        var issues: [TestIssue] = []
    }

    struct TestState {
        var started: Double?
        var startedAt: Date?
        var ended: Double?
        var skipReason: String?
        var issues: [TestIssue] = []
        var caseOrder: [String] = []
        var cases: [String: CaseState] = [:]
    }

    private(set) var tests: [String: TestRecord] = [:]
    private(set) var states: [String: TestState] = [:]
    private var order: [String] = []
    /// Ids in the order their tests (or suites) ended, were skipped or cancelled: what a live view reads.
    package private(set) var finishedOrder: [String] = []
    package private(set) var runEnded = false
    package private(set) var runStarted = false
    /// Lines that were not used because they could not be trusted (the first few, with the reason).
    package private(set) var skipped: [(line: Int, reason: String)] = []
    package private(set) var skippedCount = 0
    /// Lines that were well-formed records (used or deliberately ignored).
    package private(set) var records = 0
    /// The first and last wall-clock instants of any event: the run's wall time.
    package private(set) var wallStart: Date?
    package private(set) var wallEnd: Date?
    private var lineNumber = 0
    static let keptProblems = 5

    package init() {}

    /// Feeds one line of the stream (counted from 1 for the warnings); unknown kinds and keys are
    /// ignored, lines that cannot be trusted are skipped and remembered in `skipped`.
    package mutating func consume(_ line: String) { consume(Substring(line)) }

    package mutating func consume(_ line: Substring) {
        lineNumber += 1
        guard line.contains(where: { !$0.isWhitespace }) else { return }
        switch EventStreamLine(line) {
        case let .test(id, name, displayName, isSuite, location, caseIDs):
            records += 1
            tests[id] = TestRecord(id: id, name: name, displayName: displayName, isSuite: isSuite, location: location, caseIDs: caseIDs)
        case let .event(event):
            records += 1
            consumeEvent(event)
        case .ignored:
            records += 1
        case let .invalid(reason):
            if skipped.count < Self.keptProblems { skipped.append((lineNumber, reason)) }
            skippedCount += 1
        }
    }

    private mutating func consumeEvent(_ e: EventStreamEvent) {
        let absolute = e.absolute
        if let date = e.date {
            wallStart = min(wallStart ?? date, date)
            wallEnd = max(wallEnd ?? date, date)
        }
        switch e.kind {
        case "runStarted": runStarted = true; return
        case "runEnded": runEnded = true; return
        default: break
        }
        guard let testID = e.testID else { return }
        if states[testID] == nil { states[testID] = TestState(); order.append(testID) }
        switch e.kind {
        case "testStarted":
            states[testID]!.started = absolute
            states[testID]!.startedAt = e.date
        case "testEnded":
            if states[testID]!.ended == nil { finishedOrder.append(testID) }
            states[testID]!.ended = absolute
        case "testSkipped":
            if states[testID]!.skipReason == nil, states[testID]!.ended == nil { finishedOrder.append(testID) }
            states[testID]!.skipReason = Self.skipReason(e.texts.first) ?? "skipped"
            states[testID]!.startedAt = states[testID]!.startedAt ?? e.date
        case "testCancelled":
            if states[testID]!.skipReason == nil, states[testID]!.ended == nil { finishedOrder.append(testID) }
            states[testID]!.skipReason = "cancelled"
            states[testID]!.ended = absolute
        case "testCaseStarted", "testCaseEnded", "testCaseCancelled":
            let key = e.caseID ?? currentCaseKey(testID, starting: e.kind == "testCaseStarted")
            if states[testID]!.cases[key] == nil { states[testID]!.cases[key] = CaseState(); states[testID]!.caseOrder.append(key) }
            if e.kind == "testCaseStarted" {
                states[testID]!.cases[key]!.started = absolute
                states[testID]!.cases[key]!.startedAt = e.date
                states[testID]!.cases[key]!.arguments = Self.arguments(in: e.texts.first)
            } else {
                states[testID]!.cases[key]!.ended = absolute
            }
        case "issueRecorded":
            guard let issue = Self.issue(e.issue, texts: e.texts) else { return }
            if let caseID = e.caseID, states[testID]!.cases[caseID] != nil {
                states[testID]!.cases[caseID]!.issues.append(issue)
            } else if e.caseID == nil, let open = states[testID]!.caseOrder.last(where: { states[testID]!.cases[$0]?.ended == nil }) {
                // Without case ids (no experimental fields), the open case is the best guess.
                states[testID]!.cases[open]!.issues.append(issue)
            } else {
                states[testID]!.issues.append(issue)
            }
        default:
            break
        }
    }

    private func currentCaseKey(_ testID: String, starting: Bool) -> String {
        let state = states[testID]!
        if starting { return "case-\(state.caseOrder.count)" }
        return state.caseOrder.last { state.cases[$0]?.ended == nil } ?? "case-\(state.caseOrder.count)"
    }

    /// True when something in it is a Swift Testing record (a test, a run or a test event).
    package var isEventStream: Bool { runStarted || !tests.isEmpty || !states.isEmpty }

    /// The ids of the function tests that have events (started, skipped, ended) in this stream.
    package var functionTests: [String] { order.filter { tests[$0]?.isSuite != true } }

    /// One warning for the lines that were skipped: how many, and the first with its reason.
    package func skippedWarning(file: String) -> Diagnostic? {
        guard let first = skipped.first else { return nil }
        let more = skippedCount > 1 ? "skipped \(skippedCount) lines that cannot be trusted (the first: " : "skipped a line that cannot be trusted ("
        return .warning(file: file, line: first.line, "\(more)\(first.reason)); the results may be incomplete")
    }

    /// Function tests that started and never ended (the process died or was killed).
    package var inFlight: [String] {
        order.filter { id in
            guard let state = states[id], tests[id]?.isSuite != true else { return false }
            return state.started != nil && state.ended == nil && state.skipReason == nil
        }
    }

    /// Results of the tests that ended or were skipped (in-flight tests are left to the caller).
    package func results() -> [TestCaseResult] {
        var results: [TestCaseResult] = []
        for id in order {
            guard let state = states[id], tests[id]?.isSuite != true else { continue }
            if state.skipReason == nil && state.ended == nil { continue }
            results += self.results(for: id, state: state)
        }
        return results
    }

    /// The results of one function test that ended or was skipped (one per parameterized case); empty
    /// for a suite or a test still running.
    package func results(ofTest id: String) -> [TestCaseResult] {
        guard let state = states[id], tests[id]?.isSuite != true, state.skipReason != nil || state.ended != nil else { return [] }
        return results(for: id, state: state)
    }

    /// A result for a test that was running when its process died.
    package func interruptedResult(_ id: String, outcome: TestOutcome, crash: CrashEvidence?, duration: Double?) -> TestCaseResult {
        var result = base(id)
        result.outcome = outcome
        result.crash = crash
        result.duration = duration
        result.startedAt = states[id]?.startedAt
        result.issues = states[id]?.issues ?? []
        if let crashLocation = crash?.location { result.location = crashLocation }
        return result
    }

    private func results(for id: String, state: TestState) -> [TestCaseResult] {
        var template = base(id)
        template.startedAt = state.startedAt
        if let reason = state.skipReason {
            template.outcome = .skipped
            template.skipReason = reason
            template.duration = 0
            return [template]
        }
        if state.caseOrder.isEmpty {
            template.issues = state.issues
            template.outcome = Self.outcome(state.issues)
            template.duration = Self.duration(state.started, state.ended)
            template.location = template.primaryLocation
            return [template]
        }
        var results: [TestCaseResult] = []
        let numbers = caseNumbers(state.caseOrder, of: tests[id])
        var texts: [String: Int] = [:]
        for key in state.caseOrder { if let text = state.cases[key]?.arguments { texts[text, default: 0] += 1 } }
        for (index, key) in state.caseOrder.enumerated() {
            guard let c = state.cases[key] else { continue }
            var result = template
            // Each case is one result, and its arguments text is its identity everywhere (merges, tests.json,
            // JUnit, history): cases whose arguments print alike (a constant `description`, a repeated
            // literal) are told apart by their number among the test's cases.
            result.arguments = c.arguments.map { texts[$0, default: 0] > 1 ? "\($0) (case \(numbers[index]))" : $0 }
                ?? "case \(numbers[index])"
            result.issues = c.issues + (index == 0 ? state.issues : [])
            result.outcome = Self.outcome(result.issues)
            result.duration = Self.duration(c.started, c.ended)
            result.startedAt = c.startedAt ?? template.startedAt
            result.location = result.primaryLocation
            results.append(result)
        }
        return results
    }

    /// Each case's number (from 1): its place in the test's list of cases (the order of its arguments,
    /// the same in every run) when the stream gives the list and it places every case once, else the
    /// order the cases started in.
    private func caseNumbers(_ keys: [String], of test: TestRecord?) -> [Int] {
        let listed = keys.map { key in test?.caseIDs.firstIndex(of: key).map { $0 + 1 } }
        let numbers = listed.compactMap { $0 }
        guard numbers.count == keys.count, Set(numbers).count == numbers.count else { return keys.indices.map { $0 + 1 } }
        return numbers
    }

    private func base(_ id: String) -> TestCaseResult {
        let parts = Self.split(id)
        let record = tests[id]
        return TestCaseResult(
            id: parts.specifier, framework: .swiftTesting, module: parts.module, suite: parts.suite,
            name: record?.name ?? parts.name, displayName: record?.displayName, outcome: .passed,
            location: record?.location)
    }

    static func outcome(_ issues: [TestIssue]) -> TestOutcome {
        if issues.contains(where: \.isFailure) { return .failed }
        if issues.contains(where: { $0.kind == .knownIssue }) { return .expectedFailure }
        return .passed
    }

    /// A test's (or case's) own time: from its start event to its end event on the monotonic clock.
    static func duration(_ start: Double?, _ end: Double?) -> Double? {
        guard let start, let end, end >= start else { return nil }
        return end - start
    }

    /// `Module.Outer/Inner/name()/File.swift:L:C` → module, suite `Outer.Inner`, name, and the
    /// specifier `swift test list` prints (without the source location).
    package static func split(_ id: String) -> (module: String?, suite: String?, name: String, specifier: String) {
        var components = id.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if components.count > 1, let last = components.last, last.contains(".swift:") { components.removeLast() }
        let specifier = components.joined(separator: "/")
        guard let first = components.first else { return (nil, nil, id, id) }
        let firstParts = first.split(separator: ".", maxSplits: 1).map(String.init)
        let module = firstParts.count == 2 ? firstParts[0] : nil
        if components.count == 1 {
            return (module, nil, firstParts.count == 2 ? firstParts[1] : first, specifier)
        }
        let suites = [firstParts.count == 2 ? firstParts[1] : first] + components.dropFirst().dropLast()
        return (module, suites.joined(separator: "."), components.last!, specifier)
    }

    static func issue(_ object: [String: Any]?, texts: [String]) -> TestIssue? {
        guard let object else { return nil }
        let message = texts.first ?? "Issue recorded"
        let kind: TestIssue.Kind
        if (object["isKnown"] as? Bool) == true {
            kind = .knownIssue
        } else if (object["severity"] as? String) == "warning" || (object["isFailure"] as? Bool) == false {
            kind = .warning
        } else if message.hasPrefix("Caught error") {
            kind = .error
        } else {
            kind = .failure
        }
        return TestIssue(kind: kind, message: message, details: Array(texts.dropFirst()), location: EventStreamLine.location(object["sourceLocation"]))
    }

    /// `Test disabled() skipped: "not ready"` → `not ready`.
    static func skipReason(_ text: String?) -> String? {
        guard let text else { return nil }
        if let range = text.range(of: " skipped: \""), text.hasSuffix("\"") {
            return String(text[range.upperBound...].dropLast())
        }
        return text.hasSuffix("skipped.") ? "skipped" : text
    }

    /// `Test case passing 1 argument value → 2 to "…" started.` → `value → 2`.
    static func arguments(in text: String?) -> String? {
        guard let text, let start = text.range(of: " argument"), let to = text.range(of: " to ", options: .backwards) else { return nil }
        var rest = text[start.upperBound..<to.lowerBound]
        if rest.hasPrefix("s") { rest = rest.dropFirst() }
        let trimmed = rest.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Parses a whole stream file's text.
    package static func parse(_ text: String) -> SwiftTestingEventStream {
        var stream = SwiftTestingEventStream()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { stream.consume(line) }
        return stream
    }
}
