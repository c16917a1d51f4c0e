import Foundation

/// A test name as XCTest prints it: `Class.test` on Linux, `-[Module.Class test]` on macOS.
package struct XCTestName: Sendable, Equatable, Hashable {
    package var module: String?
    package var className: String
    package var method: String

    /// Parses either form.
    package init?(_ text: Substring) {
        if text.hasPrefix("-["), text.hasSuffix("]") {
            let inner = text.dropFirst(2).dropLast()
            guard let space = inner.lastIndex(of: " ") else { return nil }
            let qualified = inner[..<space]
            method = String(inner[inner.index(after: space)...])
            if let dot = qualified.firstIndex(of: ".") {
                module = String(qualified[..<dot])
                className = String(qualified[qualified.index(after: dot)...])
            } else {
                module = nil
                className = String(qualified)
            }
        } else {
            guard let dot = text.lastIndex(of: ".") else { return nil }
            module = nil
            className = String(text[..<dot])
            method = String(text[text.index(after: dot)...])
        }
        guard !className.isEmpty, !method.isEmpty, !method.contains(" ") else { return nil }
    }

    package init(module: String?, className: String, method: String) {
        self.module = module
        self.className = className
        self.method = method
    }

    /// `Class.method`, the key used across lines (module-free).
    package var key: String { "\(className).\(method)" }
}

/// One recognized kind of XCTest console line (swift-corelibs-xctest's PrintObserver, and Darwin's).
package enum XCTestLine: Sendable, Equatable {
    case suiteStarted(name: String)
    case suiteFinished(name: String, passed: Bool)
    case executed(tests: Int, skipped: Int, failures: Int, unexpected: Int, seconds: Double)
    case caseStarted(XCTestName, at: String?)
    case caseFinished(XCTestName, outcome: TestOutcome, seconds: Double)
    case issue(XCTestName, location: SourceLocation?, message: String, unexpected: Bool)
    case skip(XCTestName, location: SourceLocation?, reason: String)
    case measured(XCTestName, metric: PerformanceMetric)
    case fatalError(location: String, message: String)
    case programCrashed(reason: String)
    case crashedThread
    case frame(text: String, location: SourceLocation?, isUser: Bool)
    case processSignal(signal: Int)

    /// Recognizes a line (ANSI sequences already removed), or nil for anything else.
    package static func parse(_ raw: Substring) -> XCTestLine? {
        var line = raw
        if line.hasSuffix("\r") { line = line.dropLast() }
        if let signal = processSignal(in: line) { return .processSignal(signal: signal) }
        if line.hasPrefix("Test Case '") { return testCase(line) }
        if line.hasPrefix("Test Suite '") { return testSuite(line) }
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix("Executed ") { return executed(trimmed) }
        if line.hasPrefix("*** Program crashed: ") {
            return .programCrashed(reason: String(line.dropFirst(21).replacingOccurrences(of: " ***", with: "")))
        }
        if line.hasPrefix("💣 Program crashed: ") { return .programCrashed(reason: String(line.dropFirst("💣 Program crashed: ".count))) }
        if line.hasPrefix("Thread "), line.hasSuffix(" crashed:") { return .crashedThread }
        if let frame = frame(line) { return frame }
        if let fatal = line.range(of: ": Fatal error") {
            let location = String(line[..<fatal.lowerBound])
            var message = String(line[fatal.upperBound...])
            if message.hasPrefix(": ") { message.removeFirst(2) }
            return .fatalError(location: location, message: message)
        }
        return locatedLine(line)
    }

    static func processSignal(in line: Substring) -> Int? {
        guard let range = line.range(of: "with unexpected signal code "),
              line.range(of: "error: Process '") != nil || line.range(of: "error: Exited") != nil else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    private static func testCase(_ line: Substring) -> XCTestLine? {
        let rest = line.dropFirst("Test Case '".count)
        guard let quote = rest.firstIndex(of: "'"), let name = XCTestName(rest[..<quote]) else { return nil }
        let tail = rest[rest.index(after: quote)...].drop { $0 == " " }
        if tail.hasPrefix("started") {
            let at = tail.range(of: "started at ").map { String(tail[$0.upperBound...]) }
            return .caseStarted(name, at: at)
        }
        for (word, outcome) in [("passed", TestOutcome.passed), ("failed", .failed), ("skipped", .skipped)] where tail.hasPrefix(word + " (") {
            let number = tail.dropFirst(word.count + 2).prefix { $0.isNumber || $0 == "." }
            return .caseFinished(name, outcome: outcome, seconds: Double(number) ?? 0)
        }
        return nil
    }

    private static func testSuite(_ line: Substring) -> XCTestLine? {
        let rest = line.dropFirst("Test Suite '".count)
        guard let quote = rest.lastIndex(of: "'") else { return nil }
        let name = String(rest[..<quote])
        let tail = rest[rest.index(after: quote)...].drop { $0 == " " }
        if tail.hasPrefix("started") { return .suiteStarted(name: name) }
        if tail.hasPrefix("passed") { return .suiteFinished(name: name, passed: true) }
        if tail.hasPrefix("failed") { return .suiteFinished(name: name, passed: false) }
        return nil
    }

    private static func executed(_ line: Substring) -> XCTestLine? {
        // Executed 11 tests, with 3 tests skipped and 7 failures (1 unexpected) in 0.008 (0.008) seconds
        let words = line.split(separator: " ")
        guard words.count >= 4, let tests = Int(words[1]) else { return nil }
        var skipped = 0, failures = 0, unexpected = 0, seconds = 0.0
        for (i, word) in words.enumerated() {
            if word.hasPrefix("skipped"), i >= 2, let n = Int(words[i - 2]) { skipped = n }
            if word.hasPrefix("failure"), i >= 1, let n = Int(words[i - 1]) { failures = n }
            if word == "unexpected)", i >= 1, let n = Int(words[i - 1].dropFirst()) { unexpected = n }
            if word == "in", i + 1 < words.count, let t = Double(words[i + 1]) { seconds = t }
        }
        return .executed(tests: tests, skipped: skipped, failures: failures, unexpected: unexpected, seconds: seconds)
    }

    /// `  3 [ra]  0x… Class.test() + 145 in Bin at /path/File.swift:21:10`
    private static func frame(_ line: Substring) -> XCTestLine? {
        let trimmed = line.drop { $0 == " " }
        guard trimmed.count < line.count || line.first?.isNumber == true,
              let first = trimmed.first, first.isNumber,
              trimmed.range(of: " 0x") != nil else { return nil }
        let isUser = !trimmed.contains("[system]") && !trimmed.contains("[thunk]")
        var location: SourceLocation?
        if let at = trimmed.range(of: " at /", options: .backwards) {
            let path = trimmed[trimmed.index(before: at.upperBound)...]
            let parts = path.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count >= 3, let l = Int(parts[parts.count - 2]), let c = Int(parts[parts.count - 1]) {
                location = SourceLocation(file: parts.dropLast(2).joined(separator: ":"), line: l, column: c)
            }
        }
        return .frame(text: String(trimmed), location: location, isUser: isUser)
    }

    /// `file:line: error: Class.test : message`, `file:line: Class.test : Test skipped…`,
    /// `file:line: Test Case 'Class.test' measured […] …`.
    private static func locatedLine(_ line: Substring) -> XCTestLine? {
        guard let (location, rest) = splitLocation(line) else { return nil }
        if rest.hasPrefix("error: ") {
            let body = rest.dropFirst(7)
            guard let separator = body.range(of: " : "), let name = XCTestName(body[..<separator.lowerBound]) else { return nil }
            let message = String(body[separator.upperBound...])
            // A thrown error: Linux's `<EXPR>:0: … threw error "…"`, Darwin's `failed: caught error: "…"`.
            let unexpected = location?.file == "<EXPR>" || message.hasPrefix("threw error") || message.hasPrefix("failed: caught error")
            return .issue(name, location: location?.file == "<EXPR>" || location?.file == "<unknown>" ? nil : location,
                          message: message, unexpected: unexpected)
        }
        if rest.hasPrefix("Test Case '"), let quote = rest.dropFirst(11).firstIndex(of: "'"),
           let name = XCTestName(rest.dropFirst(11)[..<quote]) {
            let tail = rest[rest.index(after: quote)...]
            guard let metric = measuredMetric(tail) else { return nil }
            return .measured(name, metric: metric)
        }
        if let separator = rest.range(of: " : "), let name = XCTestName(rest[..<separator.lowerBound]) {
            let message = rest[separator.upperBound...]
            if message.hasPrefix("Test skipped") {
                return .skip(name, location: location, reason: skipReason(message))
            }
        }
        return nil
    }

    static func splitLocation(_ line: Substring) -> (SourceLocation?, Substring)? {
        // Find ":<digits>: " — the file part may itself contain colons.
        var search = line.startIndex
        while let colon = line[search...].firstIndex(of: ":") {
            let afterColon = line.index(after: colon)
            let digits = line[afterColon...].prefix { $0.isNumber }
            if !digits.isEmpty {
                let end = digits.endIndex
                if end < line.endIndex, line[end] == ":", line.index(after: end) < line.endIndex, line[line.index(after: end)] == " " {
                    let file = String(line[..<colon])
                    return (SourceLocation(file: file, line: Int(digits) ?? 0), line[line.index(end, offsetBy: 2)...])
                }
            }
            search = afterColon
        }
        return nil
    }

    /// `Test skipped - reason` → `reason`; `Test skipped` → `Test skipped`.
    static func skipReason(_ message: Substring) -> String {
        if let dash = message.range(of: " - ") {
            let reason = message[dash.upperBound...].trimmingCharacters(in: .whitespaces)
            if !reason.isEmpty { return reason }
        }
        return String(message)
    }

    /// `measured [Time, seconds] average: 0.000, relative standard deviation: 26.476%, values: [0.1, …], …`
    static func measuredMetric(_ tail: Substring) -> PerformanceMetric? {
        guard let open = tail.range(of: "measured ["), let close = tail[open.upperBound...].firstIndex(of: "]") else { return nil }
        let header = tail[open.upperBound..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        func number(after key: String) -> Double? {
            guard let r = tail.range(of: key) else { return nil }
            return Double(tail[r.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
        var values: [Double] = []
        if let v = tail.range(of: "values: ["), let end = tail[v.upperBound...].firstIndex(of: "]") {
            values = tail[v.upperBound..<end].split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        return PerformanceMetric(name: header.first ?? "Time", unit: header.count > 1 ? header[1] : "seconds",
                                 values: values, average: number(after: "average: ") ?? 0,
                                 relativeStandardDeviation: number(after: "relative standard deviation: ") ?? 0)
    }
}
