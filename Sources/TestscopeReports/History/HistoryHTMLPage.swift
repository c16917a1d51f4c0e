import Foundation
import TestscopeExecution
import TestscopeHistory

extension HTMLNavigationItem {
    /// The History page's link.
    package static let history = HTMLNavigationItem(title: "History", href: "history.html")
}

/// `history.html`: the runs of a `--history` file drawn (`templates/history.mustache` in the report's
/// layout, self-contained): coverage, test count and suite duration, failing and flaky tests per run,
/// the slowest tests' durations — each point linking to its run's row — then each test's verdict with
/// its sparkline, what changed recently, a quarantine file to start from, and every run.
package struct HistoryHTMLPage: ReportRenderer {
    package var fileName: String { ReportPageKind.history.file }
    package var templates: HTMLTemplates
    package var navigation: [HTMLNavigationItem] = [.history]
    package var generatorVersion: String
    package var paths: PathDisplay
    /// The history file, shown in the facts.
    package var historyPath = ""
    /// Charts draw the last this many runs (a point per run stays clickable at phone width).
    package let chartRuns = HistoryAnalysis.pointRuns
    /// Tests listed at most, the most serious first.
    package var testLimit = 300

    package init(templates: HTMLTemplates, generatorVersion: String, packageRoot: String) {
        self.templates = templates
        self.generatorVersion = generatorVersion
        self.paths = PathDisplay(root: packageRoot)
    }

    package func render<Output: TextOutput>(_ analysis: HistoryAnalysis, to out: inout Output) throws {
        let package = URL(fileURLWithPath: paths.root).lastPathComponent
        let body = try templates.render("history", model(analysis, package: package))
        let common = PageCommon(root: "", package: package, packageRoot: paths.root, generator: "testscope \(generatorVersion)",
                                createdAt: UTCTimestamp.iso8601(Date()),
                                nav: navigation.map { NavigationLink(title: $0.title, href: $0.href, current: $0 == .history) })
        try out.write(try templates.render("layout", LayoutModel(common: common, title: "History · \(package)", pageKind: "history",
                                                                 body: body, inline: true, templates: templates)))
    }

    func model(_ analysis: HistoryAnalysis, package: String) -> HistoryPageModel {
        let records = analysis.runs
        let shown = Array(records.suffix(chartRuns))
        let labels = Self.axisLabels(shown.map(\.run.startedAt))
        func point(_ index: Int, _ value: Double, _ text: String) -> HistoryCharts.Point {
            let run = shown[index].run
            return HistoryCharts.Point(run: index, value: value, title: "\(UTCTimestamp.iso8601(run.startedAt)) \(run.command): \(text)", href: "#run-\(run.uuid)")
        }
        func series(_ name: String, _ color: String, _ value: (HistoryRecord) -> Double?, _ text: (Double) -> String) -> HistoryCharts.Series {
            HistoryCharts.Series(name: name, color: color, points: shown.enumerated().compactMap { i, r in value(r).map { point(i, $0, "\(name) \(text($0))") } })
        }
        let percent = { (v: Double) in String(format: "%.1f%%", v) }
        let coverage = [series("lines", "--accent", { $0.run.lines?.percent }, percent),
                        series("functions", "--hi", { $0.run.functions?.percent }, percent),
                        series("regions", "--mid", { $0.run.regions?.percent }, percent)]
        let count = [series("tests", "--accent", { Double($0.run.testCount) }, { String(Int($0)) })]
        let duration = [series("suite", "--accent", { $0.run.suiteSeconds }, HistoryText.seconds)]
        let failing = [series("failed", "--lo", { Double($0.run.failedCount) }, { String(Int($0)) }),
                       series("flaky findings", "--mid", { r in Double(r.findings.filter { !["stable", "consistent-failure", "skipped"].contains($0.classification) }.count) }, { String(Int($0)) })]
        let slowest = analysis.tests.compactMap { stats in stats.medianDuration.map { (stats, $0) } }
            .sorted { ($0.1, $1.0.test) > ($1.1, $0.0.test) }.prefix(5).map(\.0)
        let palette = ["--accent", "--lo", "--mid", "--hi", "--k"]
        let slow = slowest.enumerated().map { k, stats in
            let longest = Dictionary(stats.points.map { ($0.run, $0.duration) }, uniquingKeysWith: { a, _ in a })
            return series(stats.test, palette[k], { r in longest[r.run.uuid] ?? nil }, HistoryText.seconds)
        }
        func chart(_ key: String, _ title: String, _ svg: String, _ s: [HistoryCharts.Series]) -> HistoryPageModel.Chart {
            HistoryPageModel.Chart(key: key, title: title, svg: svg, legend: s.filter { !$0.points.isEmpty }.map { ($0.name, $0.color) })
        }
        let ci = { (r: HistoryRun) in [r.ciProvider, r.ciJob, r.ciRunID].compactMap { $0 }.joined(separator: " ") }
        return HistoryPageModel(
            package: package,
            facts: [FactModel(label: "File", value: historyPath, detail: historyPath),
                    FactModel(label: "Runs", value: String(records.count), detail: "runs stored in the file"),
                    FactModel(label: "From", value: records.first.map { UTCTimestamp.iso8601($0.run.startedAt) } ?? "–", detail: "the first run"),
                    FactModel(label: "To", value: records.last.map { UTCTimestamp.iso8601($0.run.startedAt) } ?? "–", detail: "the last run")],
            chartNote: records.count > shown.count ? "the last \(shown.count) of \(records.count) runs" : "\(records.count) run\(records.count == 1 ? "" : "s")",
            charts: [chart("coverage", "Coverage", HistoryCharts.line(label: "Coverage per run", series: coverage, runs: labels, format: percent), coverage),
                     chart("tests", "Test count", HistoryCharts.line(label: "Tests per run", series: count, runs: labels, format: { String(Int($0.rounded())) }), count),
                     chart("duration", "Suite duration", HistoryCharts.line(label: "Suite duration per run", series: duration, runs: labels, format: HistoryText.seconds), duration),
                     chart("failing", "Failing and flaky tests", HistoryCharts.bars(label: "Failing and flaky tests per run", series: failing, runs: labels), failing),
                     chart("slowest", "Slowest tests", HistoryCharts.line(label: "Durations of the slowest tests", series: slow, runs: labels, format: HistoryText.seconds), slow)],
            recentRuns: String(HistoryAnalysis.recentRuns),
            recent: [("Became flaky", HistoryText.list(analysis.tests.filter(\.becameFlaky).map(\.test))),
                     ("Became broken", HistoryText.list(analysis.tests.filter(\.becameBroken).map(\.test))),
                     ("Slower", HistoryText.list(analysis.tests.filter(\.becameSlower).map { "\($0.test) (\(HistoryText.durationTrend($0)))" })),
                     ("Coverage (lines)", HistoryText.coverageTrend(analysis.coverage))],
            rule: "A test is called flaky from \(HistoryAnalysis.minimumSample) pass/fail runs on (passed and failed on the same tree or commit, or a flip rate of \(HistoryAnalysis.flakyFlipRate) or more); broken after \(HistoryAnalysis.brokenStreak) failures in a row; skipped runs are not counted.",
            testCount: String(analysis.tests.count),
            tests: analysis.tests.prefix(testLimit).map { stats in
                HistoryPageModel.TestRow(
                    test: stats.test, state: stats.state.rawValue, reason: stats.reason,
                    sparkline: HistoryCharts.sparkline(Array(stats.points.suffix(30)), label: "last runs of \(stats.test)"),
                    runs: String(stats.runs), failures: String(stats.failures), flipRate: stats.flipRate.map { String(format: "%.2f", $0) } ?? "–",
                    sameCode: String(stats.sameCodeDisagreements), duration: HistoryText.durationTrend(stats))
            },
            more: analysis.tests.count > testLimit ? "… and \(analysis.tests.count - testLimit) more (testscope history FILE lists them)" : nil,
            quarantine: analysis.quarantineLines.isEmpty ? nil : analysis.quarantineLines.joined(separator: "\n"),
            minimumSample: String(HistoryAnalysis.minimumSample),
            runs: records.reversed().map { r in
                HistoryPageModel.RunRow(uuid: r.run.uuid, started: UTCTimestamp.iso8601(r.run.startedAt), command: r.run.command,
                                        commit: r.run.commit ?? "", shortCommit: r.run.commit.map { String($0.prefix(10)) } ?? "–",
                                        branch: r.run.branch ?? "–", ci: ci(r.run).isEmpty ? "–" : ci(r.run), exit: String(r.run.exitStatus),
                                        tests: String(r.run.testCount), failed: String(r.run.failedCount),
                                        lines: r.run.lines?.percent.map(percent) ?? "–")
            })
    }

    /// `11-23 14:05`: the axis labels.
    static func short(_ date: Date, seconds: Bool = false, milliseconds: Bool = false) -> String {
        let text = milliseconds ? UTCTimestamp.iso8601Milliseconds(date) : UTCTimestamp.iso8601(date)
        guard text.count >= 19 else { return text }
        return String(text.dropFirst(5).prefix(milliseconds ? 18 : seconds ? 14 : 11)).replacingOccurrences(of: "T", with: " ")
    }

    /// The x axis's run dates (`MM-DD HH:MM`), with seconds when the first and last run share a minute,
    /// and milliseconds when they share a second too (runs of a small package follow each other that fast).
    static func axisLabels(_ dates: [Date]) -> [String] {
        let minutes = dates.map { short($0) }
        guard minutes.count > 1, minutes.first == minutes.last else { return minutes }
        let seconds = dates.map { short($0, seconds: true) }
        guard seconds.first == seconds.last else { return seconds }
        return dates.map { short($0, milliseconds: true) }
    }
}
