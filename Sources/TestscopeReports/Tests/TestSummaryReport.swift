import TestscopeExecution
import TestscopeTestResults

/// The terminal summary after a run: failures with `file:line` and message, crashes and timeouts
/// with their evidence, the slowest tests, then `N passed, N failed, N skipped` (+ crashed, timed out).
package struct TestSummaryReport: ReportRenderer {
    package var fileName: String { "tests.txt" }
    package var terminal: Terminal
    package var paths: PathDisplay
    package var slowest: Int
    /// The closing `N passed, N failed…` line (the final screen puts it first, in its verdict).
    package var showsSummaryLine = true

    package init(terminal: Terminal, packageRoot: String, slowest: Int = 5) {
        self.terminal = terminal
        self.paths = PathDisplay(root: packageRoot)
        self.slowest = slowest
    }

    package func render<Output: TextOutput>(_ run: TestRunResults, to out: inout Output) throws {
        let failing = run.results.filter { $0.outcome.isFailure }
        if !failing.isEmpty {
            try out.write(terminal.styled("Failures:", .bold) + "\n")
            for result in failing {
                let mark: String
                switch result.outcome {
                case .crashed: mark = terminal.styled("CRASHED", .red)
                case .timedOut: mark = terminal.styled("TIMED OUT", .red)
                default: mark = terminal.styled("FAILED", .red)
                }
                let args = result.arguments.map { " [\($0)]" } ?? ""
                let label = run.failureLabels[result.id].map { " — \(TestText.oneLine($0.text, limit: 200))" } ?? ""
                try out.write("  \(mark) \(result.id)\(args)\(label)\n")
                for line in TestText.failureLines(result, paths: paths) { try out.write("    \(line)\n") }
                let retries = run.otherAttempts[result.id, default: []].filter { $0.arguments == result.arguments }.count
                if retries > 0 { try out.write("    failed again in \(retries) retr\(retries == 1 ? "y" : "ies")\n") }
            }
        }
        let flaky = run.flaky
        if !flaky.isEmpty {
            try out.write(terminal.styled("Flaky (passed on a retry):", .bold) + "\n")
            for result in flaky {
                let failed = run.otherAttempts[result.id, default: []].filter { $0.arguments == result.arguments }
                let label = run.failureLabels[result.id].map { " — \(TestText.oneLine($0.text, limit: 200))" } ?? ""
                try out.write("  \(terminal.styled("FLAKY", .yellow)) \(result.id)\(result.arguments.map { " [\($0)]" } ?? "")\(label)\n")
                try out.write("    failed \(failed.count) time\(failed.count == 1 ? "" : "s") before passing: \(failed.first.map(TestText.headline) ?? "")\n")
                if let evidence = run.flakyEvidence[result.id] { try out.write("    history: \(TestText.oneLine(evidence, limit: 200))\n") }
            }
        }
        let timed = run.results.filter { ($0.duration ?? 0) > 0 }.sorted { ($0.duration ?? 0) > ($1.duration ?? 0) }
        if slowest > 0, !timed.isEmpty {
            // The run's wall time beside them: parallel tests' durations overlap, so their sum says nothing.
            let sum = run.results.compactMap(\.duration).reduce(0, +)
            let wall = run.wallTime.map { " (the tests took \(TestText.seconds($0)) of wall time\(sum > $0 * 1.1 ? "; parallel tests overlap" : ""))" } ?? ""
            try out.write(terminal.styled("Slowest tests:", .bold) + wall + "\n")
            if run.durationsMostlyWaiting { try out.write("  " + TestRunResults.waitingNote + "\n") }
            for result in timed.prefix(slowest) {
                try out.write("  \(TestText.seconds(result.duration ?? 0))  \(result.id)\(result.arguments.map { " [\($0)]" } ?? "")\n")
            }
        }
        if run.relaunches > 0 {
            try out.write("Relaunched the test binary \(run.relaunches) time(s) after a crash or timeout, so the remaining tests still ran.\n")
        }
        for group in SelectionSkips.grouped(run.notSelected) { try out.write(group.line + "\n") }
        if let line = run.observedSelectionLine { try out.write(line + "\n") }
        guard showsSummaryLine else { return }
        let style: Terminal.Style = run.hasFailures ? .red : .green
        try out.write(terminal.styled(run.summaryLine, style) + "\n")
    }
}

/// `tests.json`: the test results model (documented in docs/tests-json.md).
package struct TestResultsJSONReport: ReportRenderer {
    package var fileName: String { "tests.json" }
    package var paths: PathDisplay

    package init(packageRoot: String) { paths = PathDisplay(root: packageRoot) }

    package func render<Output: TextOutput>(_ run: TestRunResults, to out: inout Output) throws {
        let s = JSONReport.string
        var counts: [String] = []
        for outcome in TestOutcome.allCases { counts.append("\(s(outcome.rawValue)): \(run.count(outcome))") }
        let wall = run.wallTime.map { JUnitReport.time($0) } ?? "null"
        // Retries and a selection add their fields only when present.
        if !run.otherAttempts.isEmpty { counts.append("\"flaky\": \(run.flaky.count)") }
        try out.write("{\n  \"schema\": \"https://testscope.dev/schemas/tests/1\",\n  \"summary\": {\(counts.joined(separator: ", ")), \"total\": \(run.results.count), \"relaunches\": \(run.relaunches)},\n  \"wallTime\": \(wall),\n")
        let skips = SelectionSkips.grouped(run.notSelected)
        if !skips.isEmpty {
            try out.write("  \"selection\": {\"skipped\": \(run.notSelected.count), \"timeSaved\": \(JUnitReport.time(skips.reduce(0) { $0 + $1.timeSaved })), \"reasons\": ["
                + skips.map { "{\"reason\": \(s($0.reason)), \"tests\": \($0.count), \"timeSaved\": \(JUnitReport.time($0.timeSaved))}" }.joined(separator: ", ") + "]},\n")
        }
        if run.observedSelection {
            // --observe: everything ran; what the selection would have skipped, and whether any of it failed.
            let skipped = run.results.filter { run.selectionDecisions[$0.id]?.selected == false }
            let saved = skipped.reduce(0) { $0 + ($1.duration ?? 0) }
            let failed = Set(skipped.filter(\.outcome.isFailure).map(\.id)).sorted()
            try out.write("  \"observe\": {\"wouldSkip\": \(Set(skipped.map(\.id)).count), \"timeSaved\": \(JUnitReport.time(saved)), \"failedAmongSkipped\": [\(failed.map(s).joined(separator: ", "))]},\n")
        }
        try out.write("  \"properties\": {\(run.properties.map { "\(s($0.name)): \(s($0.value))" }.joined(separator: ", "))},\n  \"tests\": [")
        for (i, r) in run.results.enumerated() {
            var fields = ["\"id\": \(s(r.id))", "\"framework\": \(s(r.framework.rawValue))", "\"module\": \(r.module.map(s) ?? "null")",
                          "\"suite\": \(r.suite.map(s) ?? "null")", "\"name\": \(s(r.name))", "\"displayName\": \(r.displayName.map(s) ?? "null")",
                          "\"arguments\": \(r.arguments.map(s) ?? "null")", "\"outcome\": \(s(r.outcome.rawValue))",
                          "\"skipReason\": \(r.skipReason.map(s) ?? "null")",
                          "\"duration\": \(r.duration.map { JUnitReport.time($0) } ?? "null")",
                          "\"startedAt\": \(r.startedAt.map { s(UTCTimestamp.iso8601Milliseconds($0)) } ?? "null")",
                          "\"location\": \(location(r.location))"]
            fields.append("\"issues\": [" + r.issues.map { issue in
                "{\"kind\": \(s(issue.kind.rawValue)), \"message\": \(s(issue.message)), \"details\": [\(issue.details.map(s).joined(separator: ", "))], \"location\": \(location(issue.location))}"
            }.joined(separator: ", ") + "]")
            fields.append("\"metrics\": [" + r.metrics.map { m in
                "{\"name\": \(s(m.name)), \"unit\": \(s(m.unit)), \"average\": \(m.average), \"relativeStandardDeviation\": \(m.relativeStandardDeviation), \"values\": [\(m.values.map { String($0) }.joined(separator: ", "))]}"
            }.joined(separator: ", ") + "]")
            if let crash = r.crash {
                fields.append("\"crash\": {\"signal\": \(crash.signal.map(String.init) ?? "null"), \"fatalError\": \(crash.fatalError.map(s) ?? "null"), \"reason\": \(crash.reason.map(s) ?? "null"), \"frames\": [\(crash.frames.map(s).joined(separator: ", "))], \"location\": \(location(crash.location))}")
            } else {
                fields.append("\"crash\": null")
            }
            fields.append("\"output\": [\(r.output.map(s).joined(separator: ", "))]")
            if let label = run.failureLabels[r.id], r.outcome.isFailure || run.isFlaky(r) {
                fields.append("\"failureLabel\": {\"kind\": \(s(label.code)), \"text\": \(s(label.text)), \"reason\": \(label.reason.map(s) ?? "null")}")
            }
            if let decision = run.selectionDecisions[r.id] {
                fields.append("\"selection\": {\"selected\": \(decision.selected), \"reason\": \(s(decision.reason))}")
            }
            let others = run.otherAttempts[r.id, default: []].filter { $0.arguments == r.arguments }
            if !others.isEmpty {
                fields.append("\"flaky\": \(run.isFlaky(r))")
                if run.isFlaky(r), let evidence = run.flakyEvidence[r.id] { fields.append("\"flakyEvidence\": \(s(evidence))") }
                fields.append("\"otherAttempts\": [" + others.map { attempt in
                    "{\"outcome\": \(s(attempt.outcome.rawValue)), \"duration\": \(attempt.duration.map { JUnitReport.time($0) } ?? "null"), \"message\": \(s(TestText.headline(attempt)))}"
                }.joined(separator: ", ") + "]")
            }
            try out.write((i == 0 ? "\n    {" : ",\n    {") + fields.joined(separator: ", ") + "}")
        }
        try out.write("\n  ]\n}\n")
    }

    func location(_ l: SourceLocation?) -> String {
        guard let l else { return "null" }
        return "{\"file\": \(JSONReport.string(paths.relative(l.file))), \"line\": \(l.line), \"column\": \(l.column.map(String.init) ?? "null")}"
    }
}

/// GitHub Actions workflow commands: an `::error file=…,line=…::…` annotation per failed test, within
/// GitHub's limit of 10 error annotations per step (more are dropped silently; actions/toolkit PR #734):
/// past it, 9 annotations and one that names the rest. The step summary is `MarkdownSummary`'s.
package struct GitHubActionsReport {
    /// Error annotations GitHub shows for one step.
    package static let errorsPerStep = 10
    package var paths: PathDisplay
    package init(packageRoot: String) { paths = PathDisplay(root: packageRoot) }

    package func annotations(_ run: TestRunResults) -> [String] {
        let failing = run.results.filter { $0.outcome.isFailure }
        let shown = failing.count <= Self.errorsPerStep ? failing[...] : failing.prefix(Self.errorsPerStep - 1)
        var lines = shown.map { result in
            // The failure label (`--affected`, `--diff-base`) is in the title, where the annotation list shows it.
            let labelled = run.failureLabels[result.id].map { " — \($0.text)" } ?? ""
            let message = TestText.failureLines(result, paths: paths).joined(separator: "\n")
            return command("error", result, title: "\(label(result)) \(result.outcome.rawValue)\(labelled)",
                           message: message.isEmpty ? TestText.headline(result) : message)
        }
        let rest = failing.dropFirst(shown.count)
        if !rest.isEmpty {
            let names = rest.prefix(20).map(label).joined(separator: ", ") + (rest.count > 20 ? ", …" : "")
            lines.append("::error title=\(escapeProperty("\(rest.count) more failed tests"))::\(escapeData("GitHub shows \(Self.errorsPerStep) error annotations per step; also failed: \(names) (all of them are in the step summary and junit.xml)"))")
        }
        // A test that passed only on a retry did not fail the step, but it is a finding: a warning at its
        // first failure (GitHub shows 10 warnings per step too).
        for result in run.flaky.prefix(Self.errorsPerStep) {
            let failed = run.otherAttempts[result.id]?.first { $0.outcome.isFailure }
            let labelled = run.failureLabels[result.id].map { "; \($0.text)" } ?? ""
            let evidence = run.flakyEvidence[result.id].map { "; history: \($0)" } ?? ""
            lines.append(command("warning", failed ?? result, title: "\(label(result)) flaky",
                                 message: "failed, then passed on a retry\(labelled)\(evidence)"))
        }
        return lines
    }

    /// One workflow command at the result's place (`file=…,line=…` when it has one).
    func command(_ kind: String, _ result: TestCaseResult, title: String, message: String) -> String {
        var properties = ["title=\(escapeProperty(title))"]
        if let location = result.primaryLocation {
            properties.insert("line=\(location.line)", at: 0)
            properties.insert("file=\(escapeProperty(paths.relative(location.file)))", at: 0)
        }
        return "::\(kind) \(properties.joined(separator: ","))::\(escapeData(message))"
    }

    func label(_ result: TestCaseResult) -> String { result.id + (result.arguments.map { " [\($0)]" } ?? "") }

    func escapeData(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }
    func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
