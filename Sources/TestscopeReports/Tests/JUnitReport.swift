import Foundation
import TestscopeExecution
import TestscopeTestResults

/// `junit.xml`: one `testsuite` per XCTestCase class or Swift Testing suite, one `testcase` per test
/// and per parameterized case. Strict mode leaves out everything the Ant and Jenkins schemas reject
/// (testcase `file`/`line`, root attributes, testcase `system-out`).
package struct JUnitReport: ReportRenderer {
    package var fileName: String { "junit.xml" }
    package var strict: Bool
    package var paths: PathDisplay
    package var hostname: String

    package init(strict: Bool, packageRoot: String, hostname: String = ProcessInfo.processInfo.hostName) {
        self.strict = strict
        self.paths = PathDisplay(root: packageRoot)
        self.hostname = hostname.isEmpty ? "localhost" : hostname
    }

    package func render<Output: TextOutput>(_ run: TestRunResults, to out: inout Output) throws {
        var suites: [(name: String, results: [TestCaseResult])] = []
        for result in run.results {
            let name = result.className.isEmpty ? "Tests" : result.className
            if let i = suites.firstIndex(where: { $0.name == name }) { suites[i].results.append(result) } else { suites.append((name, [result])) }
        }
        try out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        if strict {
            try out.write("<testsuites>\n")
        } else {
            let total = run.wallTime ?? 0
            try out.write("<testsuites name=\"testscope\" tests=\"\(run.results.count)\" failures=\"\(count(run.results, .failure))\" errors=\"\(count(run.results, .error))\" time=\"\(Self.time(total))\">\n")
        }
        for (index, suite) in suites.enumerated() {
            try writeSuite(suite.name, suite.results, id: index, run: run, to: &out)
        }
        try out.write("</testsuites>\n")
    }

    enum Element: String { case failure, error, skipped }

    func element(_ result: TestCaseResult) -> Element? { Self.element(result) }

    /// The JUnit (and SonarQube) element of a result: failure, error or skipped; nil when it passed.
    static func element(_ result: TestCaseResult) -> Element? {
        switch result.outcome {
        case .skipped: return .skipped
        case .crashed, .timedOut: return .error
        case .failed: return result.issues.contains { $0.kind == .failure } ? .failure : .error
        case .passed, .expectedFailure: return nil
        }
    }

    func count(_ results: [TestCaseResult], _ kind: Element) -> Int { results.filter { element($0) == kind }.count }

    private func writeSuite<Output: TextOutput>(_ name: String, _ results: [TestCaseResult], id: Int, run: TestRunResults, to out: inout Output) throws {
        // Wall time, never more than the run's: a suite's tests run in parallel (Swift Testing).
        let time = min(TestRunResults.wallTime(of: results) ?? 0, run.wallTime ?? .infinity)
        let started = results.compactMap(\.startedAt).min() ?? run.startedAt ?? Date()
        let module = results.first?.module ?? name
        try out.write("  <testsuite name=\"\(XMLText.attribute(name))\" tests=\"\(results.count)\" failures=\"\(count(results, .failure))\" errors=\"\(count(results, .error))\" skipped=\"\(count(results, .skipped))\" time=\"\(Self.time(time))\" timestamp=\"\(Self.timestamp(started))\" hostname=\"\(XMLText.attribute(hostname))\" id=\"\(id)\" package=\"\(XMLText.attribute(module))\">\n")
        try out.write("    <properties>\n")
        var properties = run.properties
        properties.append(("framework", Set(results.map(\.framework.rawValue)).sorted().joined(separator: ", ")))
        if results.contains(where: { $0.outcome == .crashed }) { properties.append(("crashed", "true")) }
        if results.contains(where: { $0.outcome == .timedOut }) { properties.append(("timedOut", "true")) }
        if run.relaunches > 0 { properties.append(("relaunches", "\(run.relaunches)")) }
        for (key, value) in properties {
            try out.write("      <property name=\"\(XMLText.attribute(key))\" value=\"\(XMLText.attribute(value))\"/>\n")
        }
        try out.write("    </properties>\n")
        var suiteOutput: [String] = []
        for result in results {
            try writeCase(result, run: run, to: &out)
            if strict { suiteOutput += systemOut(result).map { "[\(result.caseName)] \($0)" } }
        }
        try out.write("    <system-out>\(XMLText.content(BoundedText.lines(suiteOutput).joined(separator: "\n")))</system-out>\n")
        try out.write("    <system-err></system-err>\n")
        try out.write("  </testsuite>\n")
    }

    private func writeCase<Output: TextOutput>(_ result: TestCaseResult, run: TestRunResults, to out: inout Output) throws {
        var attributes = "classname=\"\(XMLText.attribute(result.className.isEmpty ? "Tests" : result.className))\" name=\"\(XMLText.attribute(result.caseName))\" time=\"\(Self.time(result.duration ?? 0))\""
        if !strict, let location = result.primaryLocation {
            attributes += " file=\"\(XMLText.attribute(paths.relative(location.file)))\" line=\"\(location.line)\""
        }
        let kind = element(result)
        let stdout = strict ? [] : systemOut(result)
        // Surefire's rerun format: a retried test's other attempts (Ant's schema has no element for them).
        let others = strict ? [] : run.otherAttempts[result.id, default: []].filter { $0.arguments == result.arguments }
        if kind == nil && stdout.isEmpty && others.isEmpty {
            try out.write("    <testcase \(attributes)/>\n")
            return
        }
        try out.write("    <testcase \(attributes)>\n")
        switch kind {
        case .skipped:
            let reason = result.skipReason ?? "skipped"
            try out.write("      <skipped message=\"\(XMLText.attribute(TestText.oneLine(reason)))\">\(XMLText.content(BoundedText.cap(reason)))</skipped>\n")
        case .failure, .error:
            // The failure label (`run` with a labeler) closes the message, where every consumer shows it.
            let label = run.failureLabels[result.id].map { " [\(TestText.oneLine($0.text, limit: 200))]" } ?? ""
            let body = TestText.failureLines(result, paths: paths).joined(separator: "\n")
            try out.write("      <\(kind!.rawValue) message=\"\(XMLText.attribute(TestText.headline(result) + label))\" type=\"\(XMLText.attribute(type(result)))\">\(XMLText.content(body))</\(kind!.rawValue)>\n")
        case nil:
            break
        }
        for (number, attempt) in others.enumerated() {
            let prefix = kind == nil ? "flaky" : "rerun"
            let name = prefix + (element(attempt) == .error ? "Error" : "Failure")
            try out.write(Self.rerun(name, message: TestText.headline(attempt), type: type(attempt),
                                     body: TestText.failureLines(attempt, paths: paths).joined(separator: "\n"),
                                     systemOut: "attempt \(number + 1) of \(others.count + 1) failed"))
        }
        if !stdout.isEmpty {
            try out.write("      <system-out>\(XMLText.content(BoundedText.lines(stdout).joined(separator: "\n")))</system-out>\n")
        }
        try out.write("    </testcase>\n")
    }

    /// A `flakyFailure`/`flakyError` (an attempt that failed before the test passed) or `rerunFailure`/`rerunError`
    /// (a retry that failed too), as Maven Surefire writes them: the failure lines as `stackTrace`, a note as `system-out`.
    static func rerun(_ element: String, message: String, type: String, body: String, systemOut: String) -> String {
        "      <\(element) message=\"\(XMLText.attribute(message))\" type=\"\(XMLText.attribute(type))\">"
            + "<stackTrace>\(XMLText.content(body))</stackTrace><system-out>\(XMLText.content(systemOut))</system-out></\(element)>\n"
    }

    /// The test's own output plus what JUnit has no element for: display name, known issues, warnings.
    func systemOut(_ result: TestCaseResult) -> [String] {
        var lines: [String] = []
        if let display = result.displayName { lines.append("display-name: \(display)") }
        for issue in result.issues where !issue.isFailure {
            let place = issue.location.map { "\(paths.relative($0.file)):\($0.line): " } ?? ""
            lines.append("\(issue.kind == .knownIssue ? "known issue" : "warning"): \(place)\(issue.message)")
        }
        for metric in result.metrics {
            lines.append("measured \(metric.name) (\(metric.unit)): average \(metric.average), relative standard deviation \(metric.relativeStandardDeviation)%, values \(metric.values.map { String($0) }.joined(separator: ", "))")
        }
        return lines + result.output
    }

    func type(_ result: TestCaseResult) -> String {
        switch result.outcome {
        case .crashed: return "crash"
        case .timedOut: return "timeout"
        default: break
        }
        guard let issue = result.issues.first(where: \.isFailure) else { return "failure" }
        if result.framework == .swiftTesting {
            if issue.message.hasPrefix("Expectation failed") { return "expectation" }
            if issue.message.hasPrefix("Caught error") { return "errorCaught" }
            return "issue"
        }
        if issue.kind == .error { return "thrownError" }
        let first = issue.message.prefix { $0 != " " && $0 != ":" }
        return first.hasPrefix("XCT") ? String(first) : (issue.message.hasPrefix("failed") ? "XCTFail" : "assertion")
    }

    /// Seconds with at most 3 decimals, `.` separator, no grouping.
    static func time(_ seconds: Double) -> String {
        let millis = Int64((max(0, seconds) * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `yyyy-MM-dd'T'HH:mm:ss` in UTC, no zone, no fraction.
    static func timestamp(_ date: Date) -> String {
        UTCTimestamp.withoutZone(date)
    }
}
