import Foundation
import TestscopeFlakiness
import TestscopeTestResults

/// `flaky-junit.xml`: one testcase per test over all detection runs, Surefire-style. A test that failed
/// in some runs and passed in others passed overall and carries one `flakyFailure`/`flakyError` per
/// failing run; a test that failed in every run has `failure`/`error` (its first failure) and a
/// `rerunFailure`/`rerunError` for each other run. Valid against Jenkins' junit-10.xsd (no testcase file/line).
package struct FlakyJUnitReport: ReportRenderer {
    package var fileName: String { "flaky-junit.xml" }
    package var paths: PathDisplay
    package var hostname: String

    package init(packageRoot: String, hostname: String = ProcessInfo.processInfo.hostName) {
        paths = PathDisplay(root: packageRoot)
        self.hostname = hostname.isEmpty ? "localhost" : hostname
    }

    package func render<Output: TextOutput>(_ report: FlakyReport, to out: inout Output) throws {
        var suites: [(name: String, findings: [TestFinding])] = []
        for finding in report.findings {
            let name = FlakyText.classAndName(finding.id).className
            if let i = suites.firstIndex(where: { $0.name == name }) { suites[i].findings.append(finding) } else { suites.append((name, [finding])) }
        }
        let all = report.findings
        try out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        try out.write("<testsuites name=\"testscope flaky\" tests=\"\(all.count)\" failures=\"\(count(all, "failure"))\" errors=\"\(count(all, "error"))\" time=\"\(JUnitReport.time(total(all, report)))\">\n")
        for (index, suite) in suites.enumerated() {
            let findings = suite.findings
            try out.write("  <testsuite name=\"\(XMLText.attribute(suite.name))\" tests=\"\(findings.count)\" failures=\"\(count(findings, "failure"))\" errors=\"\(count(findings, "error"))\" skipped=\"\(findings.filter { $0.classification == .skipped }.count)\" time=\"\(JUnitReport.time(total(findings, report)))\" timestamp=\"\(JUnitReport.timestamp(report.startedAt))\" hostname=\"\(XMLText.attribute(hostname))\" id=\"\(index)\">\n")
            try out.write("    <properties>\n")
            let properties = [("seed", String(report.seed)), ("runs", String(report.orders.count)), ("jobs", String(report.jobs)),
                              ("flaky", String(findings.filter { $0.classification.isFlaky }.count))]
            for (name, value) in properties {
                try out.write("      <property name=\"\(name)\" value=\"\(XMLText.attribute(value))\"/>\n")
            }
            try out.write("    </properties>\n")
            for finding in findings { try writeCase(finding, report: report, to: &out) }
            try out.write("  </testsuite>\n")
        }
        try out.write("</testsuites>\n")
    }

    /// The main element a finding gets: `failure`/`error` when it failed in every run, `skipped`, or none.
    func element(_ finding: TestFinding) -> String? {
        switch finding.classification {
        case .consistentFailure:
            return finding.failures.first.map { isError($0.result) ? "error" : "failure" } ?? "failure"
        case .skipped: return "skipped"
        default: return nil
        }
    }

    func count(_ findings: [TestFinding], _ name: String) -> Int { findings.filter { element($0) == name }.count }

    func isError(_ result: TestCaseResult) -> Bool {
        result.outcome == .crashed || result.outcome == .timedOut || (result.outcome == .failed && !result.issues.contains { $0.kind == .failure })
    }

    /// The mean duration of a test over the runs (XCTest's and Swift Testing's own timings).
    func time(_ finding: TestFinding, _ report: FlakyReport) -> Double {
        let durations = report.executions.compactMap { $0.results[finding.id]?.duration }
        return durations.isEmpty ? 0 : durations.reduce(0, +) / Double(durations.count)
    }

    func total(_ findings: [TestFinding], _ report: FlakyReport) -> Double { findings.reduce(0) { $0 + time($1, report) } }

    private func writeCase<Output: TextOutput>(_ finding: TestFinding, report: FlakyReport, to out: inout Output) throws {
        let (className, name) = FlakyText.classAndName(finding.id)
        try out.write("    <testcase classname=\"\(XMLText.attribute(className))\" name=\"\(XMLText.attribute(name))\" time=\"\(JUnitReport.time(time(finding, report)))\"")
        if finding.classification == .stable {
            try out.write("/>\n")
            return
        }
        try out.write(">\n")
        let failures = finding.failures
        switch finding.classification {
        case .skipped:
            try out.write("      <skipped message=\"skipped in every run\">skipped in every run</skipped>\n")
        case .consistentFailure:
            if let first = failures.first {
                let kind = element(finding)!
                let body = TestText.failureLines(first.result, paths: paths, fullTextIn: "flaky.json").joined(separator: "\n")
                try out.write("      <\(kind) message=\"\(XMLText.attribute(TestText.headline(first.result)))\" type=\"\(XMLText.attribute(type(first.result)))\">\(XMLText.content(runLine(first.run, report) + "\n" + body))</\(kind)>\n")
            }
            for failure in failures.dropFirst() {
                try writeRerun(isError(failure.result) ? "rerunError" : "rerunFailure", failure, report: report, to: &out)
            }
        default:
            for failure in failures {
                try writeRerun(isError(failure.result) ? "flakyError" : "flakyFailure", failure, report: report, to: &out)
            }
        }
        var lines = ["classification: \(finding.classification.rawValue)\(finding.quarantined ? " (quarantined)" : "")",
                     "failed in \(finding.failedRuns) of \(finding.runs) runs (seed \(report.seed))"]
        let culprits = FlakyText.culprits(finding)
        if !culprits.isEmpty { lines.append(culprits) }
        if let reproduce = report.reproduce(finding) { lines.append("reproduce: \(reproduce.testscope)") }
        try out.write("      <system-out>\(XMLText.content(lines.joined(separator: "\n")))</system-out>\n")
        try out.write("    </testcase>\n")
    }

    private func writeRerun<Output: TextOutput>(_ element: String, _ failure: (run: Int, result: TestCaseResult), report: FlakyReport,
                                                 to out: inout Output) throws {
        let body = TestText.failureLines(failure.result, paths: paths, fullTextIn: "flaky.json").joined(separator: "\n")
        try out.write(JUnitReport.rerun(element, message: TestText.headline(failure.result), type: type(failure.result), body: body,
                                        systemOut: runLine(failure.run, report)))
    }

    /// `run 3 (method-shuffle, run seed 0x…): testscope flaky … --seed S --replay 3`.
    func runLine(_ run: Int, _ report: FlakyReport) -> String {
        "run \(run) (\(report.orders[run].label)): \(FlakyText.replay(report, run: run))"
    }

    func type(_ result: TestCaseResult) -> String {
        switch result.outcome {
        case .crashed: return "crash"
        case .timedOut: return "timeout"
        default: return result.issues.first(where: \.isFailure).map { $0.kind == .error ? "error" : "failure" } ?? "failure"
        }
    }
}
