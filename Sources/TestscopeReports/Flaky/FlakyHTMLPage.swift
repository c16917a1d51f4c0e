import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeTestResults

extension HTMLNavigationItem {
    /// The Flaky page's link.
    package static let flaky = HTMLNavigationItem(title: "Flaky", href: "flaky.html")
}

/// `flaky.html`: the Flaky page of the HTML report, rendered from `templates/flaky.mustache` inside the
/// report's layout (its CSS and script inlined, so it opens on its own): counts, the tests that are not
/// stable with their reproduction commands, the outcome matrix of tests × runs, each test's evidence
/// (orders, prefixes, verdicts, messages) and every run's order.
package struct FlakyHTMLPage: ReportRenderer, PageWriter {
    package var fileName: String { ReportPageKind.flaky.file }
    package var pageKinds: [ReportPageKind] { [.flaky] }
    package var templates: HTMLTemplates
    package var navigation: [HTMLNavigationItem]
    package var generatorVersion: String
    package var paths: PathDisplay

    package init(templates: HTMLTemplates, navigation: [HTMLNavigationItem] = [.flaky], generatorVersion: String, packageRoot: String) {
        self.templates = templates
        self.navigation = navigation
        self.generatorVersion = generatorVersion
        self.paths = PathDisplay(root: packageRoot)
    }

    package func render<Output: TextOutput>(_ report: FlakyReport, to out: inout Output) throws {
        let package = URL(fileURLWithPath: report.packageRoot).lastPathComponent
        let created = JUnitReport.timestamp(report.startedAt).replacingOccurrences(of: "T", with: " ") + " UTC"
        let body = try templates.render("flaky", model(report, package: package))
        let common = PageCommon(root: "", package: package, packageRoot: report.packageRoot, generator: "testscope \(generatorVersion)",
                                createdAt: created,
                                nav: navigation.map { NavigationLink(title: $0.title, href: $0.href, current: $0 == .flaky) })
        try out.write(try templates.render("layout", LayoutModel(common: common, title: "Flaky tests · \(package)", pageKind: "flaky",
                                                                 body: body, inline: true, templates: templates)))
    }

    /// Writes `flaky.html`; returns its path.
    @discardableResult
    package func writePages(_ report: FlakyReport, into folder: OutputFolder) throws -> [String] {
        [try write(report, into: folder)]
    }

    func model(_ report: FlakyReport, package: String) -> FlakyPageModel {
        let shown = report.findings.filter { $0.classification != .stable && $0.classification != .skipped }
        let anchors = Dictionary(uniqueKeysWithValues: shown.enumerated().map { ($0.element.id, "t\($0.offset + 1)") })
        let facts = [
            FactModel(label: "Package", value: package, detail: report.packageRoot),
            FactModel(label: "Seed", value: String(report.seed), detail: "replay a run with --seed \(report.seed) --replay K"),
            FactModel(label: "Runs", value: String(report.orders.count), detail: "run 0 default order, run 1 reversed, then seeded shuffles"),
            FactModel(label: "Jobs", value: report.jobLimits.map { FlakyReport.jobsText(start: $0.start, max: $0.max) } ?? String(report.jobs),
                      detail: "at most \(report.jobs) ran at the same time (the results do not depend on it)"),
            FactModel(label: "Swift Testing", value: report.swiftTestingMethod.rawValue, detail: "how Swift Testing tests were run"),
            FactModel(label: "Modes", value: report.modes.map(\.rawValue).joined(separator: ", "), detail: "the conditions the runs took in turn (--nod-modes)"),
            FactModel(label: "Time", value: String(format: "build %.1f s · runs %.1f s · analysis %.1f s", report.buildSeconds,
                                                   report.detectionSeconds, report.analysisSeconds)
                                                   + (report.fixSeconds > 0 ? String(format: " · fixes %.1f s", report.fixSeconds) : ""), detail: "wall time"),
        ]
        let tallies = report.tallies
        let runs = report.orders.enumerated().map { index, order in
            FlakyPageModel.Run(index: String(order.index), label: order.label, tests: order.tests, replay: FlakyText.replay(report, run: index),
                               summary: (tallies[index].counts + [tallies[index].time]).joined(separator: ", "))
        }
        let matrix = report.findings.map { finding in
            FlakyPageModel.MatrixRow(id: finding.id, anchor: anchors[finding.id], cells: report.orders.indices.map { run in
                let outcome = FlakyText.outcome(report, run: run, test: finding.id)
                return FlakyPageModel.Cell(outcome: outcome, mark: Self.mark(outcome), title: "run \(run) (\(report.orders[run].label)): \(outcome)")
            })
        }
        return FlakyPageModel(package: package, facts: facts,
                              counts: FlakyClassification.allCases.map { FlakyPageModel.Count(name: $0.rawValue, count: String(report.count($0))) },
                              findings: shown.map { finding(report, $0, anchor: anchors[$0.id]!) },
                              runs: runs, matrix: matrix, seed: String(report.seed), stableConfidence: report.stableConfidence)
    }

    func finding(_ report: FlakyReport, _ f: TestFinding, anchor: String) -> FindingModel {
        let reproduce = report.reproduce(f)
        let culprits = FlakyText.culprits(f)
        func order(_ tests: [String]) -> [FindingModel.OrderTest] { tests.map { FindingModel.OrderTest(name: $0, isSelf: $0 == f.id) } }
        var model = FindingModel(
            id: f.id, anchor: anchor, classification: f.classification.rawValue, quarantined: f.quarantined,
            failed: String(f.failedRuns), runs: String(f.runs), framework: f.framework.rawValue, method: f.method.rawValue,
            culprits: culprits.isEmpty ? nil : culprits, reproduce: reproduce?.testscope, reproduceBinary: reproduce?.binary, note: f.note,
            failingOrder: f.failingOrder.map { FindingModel.Order(tests: order($0)) },
            passingOrder: f.passingOrder.map { FindingModel.Order(tests: order($0)) },
            failures: f.failures.map { failure in
                FindingModel.Failure(run: String(failure.run), outcome: failure.result.outcome.rawValue, message: TestText.headline(failure.result),
                                     location: failure.result.primaryLocation.map { "\(paths.relative($0.file)):\($0.line)" })
            },
            evidence: f.evidence.map { step in
                FindingModel.Evidence(label: step.label, verdicts: step.verdicts.map(\.rawValue).joined(separator: ", "), tests: order(step.order))
            },
            fix: f.fix.map { fix in
                FindingModel.Fix(summary: FlakyText.fix(f) ?? "", file: fix.file, status: fix.verification.status, diff: fix.diff)
            })
        model.sharedState = f.sharedState.map(SharedStateModel.init)
        return model
    }

    static func mark(_ outcome: String) -> String {
        switch outcome {
        case "passed", "expected-failure": return "✓"
        case "failed": return "✗"
        case "crashed": return "C"
        case "timed-out": return "T"
        case "skipped": return "s"
        default: return "·"
        }
    }
}
