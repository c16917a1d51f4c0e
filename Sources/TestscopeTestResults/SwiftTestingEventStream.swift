import Foundation

/// Reads Swift Testing's JSON event stream (`--event-stream-output-path`, JSON Lines; version 0 or
/// "6.3.0"). Events may arrive out of order: everything is attributed by test id (and test case
/// id), never by line order. Each parameterized case becomes its own result.
public struct SwiftTestingEventStream {
    struct TestRecord {
        var id: String
        var name: String
        var displayName: String?
        var isSuite: Bool
        var location: SourceLocation?
    }

    struct CaseState {
        var arguments: String?
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
    public private(set) var runEnded = false
    public private(set) var runStarted = false
    public private(set) var unreadableLines = 0

    public init() {}

    /// Feeds one line of the stream; unknown kinds and keys are ignored.
    public mutating func consume(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any],
              let kind = object["kind"] as? String, let payload = object["payload"] as? [String: Any]
        else { unreadableLines += 1; return }
        if kind == "test" { consumeTest(payload) } else if kind == "event" { consumeEvent(payload) }
    }

    private mutating func consumeTest(_ p: [String: Any]) {
        guard let id = p["id"] as? String, let name = p["name"] as? String else { return }
        tests[id] = TestRecord(id: id, name: name, displayName: p["displayName"] as? String,
                               isSuite: (p["kind"] as? String) == "suite", location: Self.location(p["sourceLocation"]))
    }

    private mutating func consumeEvent(_ p: [String: Any]) {
        guard let kind = p["kind"] as? String else { return }
        let instant = p["instant"] as? [String: Any]
        let absolute = (instant?["absolute"] as? NSNumber)?.doubleValue
        let since1970 = (instant?["since1970"] as? NSNumber)?.doubleValue
        let messages = (p["messages"] as? [[String: Any]]) ?? []
        let texts = messages.compactMap { $0["text"] as? String }
        let caseID = (p["_testCase"] as? [String: Any])?["id"] as? String
        switch kind {
        case "runStarted": runStarted = true; return
        case "runEnded": runEnded = true; return
        default: break
        }
        guard let testID = p["testID"] as? String else { return }
        if states[testID] == nil { states[testID] = TestState(); order.append(testID) }
        switch kind {
        case "testStarted":
            states[testID]!.started = absolute
            states[testID]!.startedAt = since1970.map { Date(timeIntervalSince1970: $0) }
        case "testEnded":
            states[testID]!.ended = absolute
        case "testSkipped":
            states[testID]!.skipReason = Self.skipReason(texts.first) ?? "skipped"
        case "testCancelled":
            states[testID]!.skipReason = "cancelled"
            states[testID]!.ended = absolute
        case "testCaseStarted", "testCaseEnded", "testCaseCancelled":
            let key = caseID ?? currentCaseKey(testID, starting: kind == "testCaseStarted")
            if states[testID]!.cases[key] == nil { states[testID]!.cases[key] = CaseState(); states[testID]!.caseOrder.append(key) }
            if kind == "testCaseStarted" {
                states[testID]!.cases[key]!.started = absolute
                states[testID]!.cases[key]!.arguments = Self.arguments(in: texts.first)
            } else {
                states[testID]!.cases[key]!.ended = absolute
            }
        case "issueRecorded":
            guard let issue = Self.issue(p["issue"] as? [String: Any], texts: texts) else { return }
            if let caseID, states[testID]!.cases[caseID] != nil {
                states[testID]!.cases[caseID]!.issues.append(issue)
            } else if caseID == nil, let open = states[testID]!.caseOrder.last(where: { states[testID]!.cases[$0]?.ended == nil }) {
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

    /// Function tests that started and never ended (the process died or was killed).
    public var inFlight: [String] {
        order.filter { id in
            guard let state = states[id], tests[id]?.isSuite != true else { return false }
            return state.started != nil && state.ended == nil && state.skipReason == nil
        }
    }

    /// Results of the tests that ended or were skipped (in-flight tests are left to the caller).
    public func results() -> [TestCaseResult] {
        var results: [TestCaseResult] = []
        for id in order {
            guard let state = states[id], tests[id]?.isSuite != true else { continue }
            if state.skipReason == nil && state.ended == nil { continue }
            results += self.results(for: id, state: state)
        }
        return results
    }

    /// A result for a test that was running when its process died.
    public func interruptedResult(_ id: String, outcome: TestOutcome, crash: CrashEvidence?, duration: Double?) -> TestCaseResult {
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
        for (index, key) in state.caseOrder.enumerated() {
            guard let c = state.cases[key] else { continue }
            var result = template
            result.arguments = c.arguments ?? "case \(index + 1)"
            result.issues = c.issues + (index == 0 ? state.issues : [])
            result.outcome = Self.outcome(result.issues)
            result.duration = Self.duration(c.started, c.ended)
            result.location = result.primaryLocation
            results.append(result)
        }
        return results
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

    static func duration(_ start: Double?, _ end: Double?) -> Double? {
        guard let start, let end else { return nil }
        return max(0, end - start)
    }

    /// `Module.Outer/Inner/name()/File.swift:L:C` → module, suite `Outer.Inner`, name, and the
    /// specifier `swift test list` prints (without the source location).
    public static func split(_ id: String) -> (module: String?, suite: String?, name: String, specifier: String) {
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

    static func location(_ value: Any?) -> SourceLocation? {
        guard let object = value as? [String: Any], let line = (object["line"] as? NSNumber)?.intValue else { return nil }
        let file = (object["filePath"] as? String) ?? (object["_filePath"] as? String) ?? (object["fileID"] as? String) ?? "<unknown>"
        return SourceLocation(file: file, line: line, column: (object["column"] as? NSNumber)?.intValue)
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
        return TestIssue(kind: kind, message: message, details: Array(texts.dropFirst()), location: location(object["sourceLocation"]))
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
    public static func parse(_ text: String) -> SwiftTestingEventStream {
        var stream = SwiftTestingEventStream()
        for line in text.split(separator: "\n") { stream.consume(String(line)) }
        return stream
    }
}
