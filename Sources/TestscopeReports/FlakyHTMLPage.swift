import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeTestResults

extension HTMLNavigationItem {
    /// The Flaky page's link.
    public static let flaky = HTMLNavigationItem(title: "Flaky", href: "flaky.html")

    /// The report's pages that exist in `folder`, in order: Coverage (index.html), Tests (tests.html), then
    /// Flaky (flaky.html). `adding` counts as existing (the page about to be written). See `pages(in:writing:)`.
    public static func pages(in folder: URL, adding: HTMLNavigationItem? = nil) -> [HTMLNavigationItem] {
        pages(in: folder, writing: adding.map { [$0] } ?? [])
    }
}

/// `flaky.html`: the Flaky page of the HTML report, rendered from `templates/flaky.mustache` inside the
/// report's layout (its CSS and script inlined, so it opens on its own): counts, the tests that are not
/// stable with their reproduction commands, the outcome matrix of tests × runs, each test's evidence
/// (orders, prefixes, verdicts, messages) and every run's order.
public struct FlakyHTMLPage: FlakyRenderer {
    public var fileName: String { "flaky.html" }
    public var templates: HTMLTemplates
    public var navigation: [HTMLNavigationItem]
    public var generatorVersion: String
    public var paths: PathDisplay

    public init(templates: HTMLTemplates, navigation: [HTMLNavigationItem] = [.flaky], generatorVersion: String, packageRoot: String) {
        self.templates = templates
        self.navigation = navigation
        self.generatorVersion = generatorVersion
        self.paths = PathDisplay(root: packageRoot)
    }

    public func render<Output: TextOutput>(_ report: FlakyReport, to out: inout Output) throws {
        let package = URL(fileURLWithPath: report.packageRoot).lastPathComponent
        let created = JUnitReport.timestamp(report.startedAt).replacingOccurrences(of: "T", with: " ") + " UTC"
        let body = try templates.render("flaky", model(report, package: package))
        let generator = "testscope \(generatorVersion)"
        let page: HTMLModels.Model = [
            "root": "", "package": package, "packageRoot": report.packageRoot, "generator": generator, "createdAt": created,
            "nav": navigation.map { ["title": $0.title, "href": $0.href, "current": $0 == .flaky] as HTMLModels.Model },
            "title": "Flaky tests · \(package)", "pageKind": "flaky", "body": body, "inlineAssets": true,
            "headScript": HTMLEscaping.inlineElementText(templates.assets["head.js"] ?? ""),
            "css": HTMLEscaping.inlineElementText(templates.assets["report.css"] ?? ""),
            "script": HTMLEscaping.inlineElementText(templates.assets["report.js"] ?? ""),
        ]
        try out.write(try templates.render("layout", page))
    }

    func model(_ report: FlakyReport, package: String) -> HTMLModels.Model {
        let shown = report.findings.filter { $0.classification != .stable && $0.classification != .skipped }
        let anchors = Dictionary(uniqueKeysWithValues: shown.enumerated().map { ($0.element.id, "t\($0.offset + 1)") })
        let facts: [HTMLModels.Model] = [
            ["label": "Package", "value": package, "detail": report.packageRoot],
            ["label": "Seed", "value": String(report.seed), "detail": "replay a run with --seed \(report.seed) --replay K"],
            ["label": "Runs", "value": String(report.orders.count), "detail": "run 0 default order, run 1 reversed, then seeded shuffles"],
            ["label": "Jobs", "value": String(report.jobs), "detail": "the most runs at the same time (the results do not depend on it)"],
            ["label": "Swift Testing", "value": report.swiftTestingMethod.rawValue, "detail": "how Swift Testing tests were run"],
            ["label": "Time", "value": String(format: "build %.1f s · runs %.1f s · analysis %.1f s", report.buildSeconds, report.detectionSeconds, report.analysisSeconds),
             "detail": "wall time"],
        ]
        let counts: [HTMLModels.Model] = FlakyClassification.allCases.map { ["name": $0.rawValue, "count": String(report.count($0))] }
        let findings = shown.map { finding(report, $0, anchor: anchors[$0.id]!) }
        let runs: [HTMLModels.Model] = report.orders.enumerated().map { index, order in
            [
                "index": String(order.index), "label": order.label, "tests": order.tests,
                "replay": FlakyText.replay(report, run: index),
                "summary": FlakyDetector.line(order, report.executions[index], of: report.orders.count)
                    .components(separatedBy: "  ").dropFirst(2).joined(separator: ", "),
            ]
        }
        let matrix: [HTMLModels.Model] = report.findings.map { finding in
            [
                "id": finding.id, "anchor": anchors[finding.id].map { $0 as Any } ?? false,
                "cells": report.orders.indices.map { run -> HTMLModels.Model in
                    let outcome = FlakyText.outcome(report, run: run, test: finding.id)
                    return ["outcome": outcome, "mark": Self.mark(outcome), "title": "run \(run) (\(report.orders[run].label)): \(outcome)"]
                },
            ]
        }
        return [
            "package": package, "facts": facts, "counts": counts, "findings": findings, "hasFindings": !findings.isEmpty,
            "runCount": String(report.orders.count), "runs": runs, "matrix": matrix, "seed": String(report.seed),
        ]
    }

    func finding(_ report: FlakyReport, _ f: TestFinding, anchor: String) -> HTMLModels.Model {
        let reproduce = report.reproduce(f)
        let culprits = FlakyText.culprits(f)
        func order(_ tests: [String]?) -> Any {
            guard let tests else { return false }
            return ["tests": tests.map { ["name": $0, "self": $0 == f.id] as HTMLModels.Model }] as HTMLModels.Model
        }
        let failures: [HTMLModels.Model] = f.failures.map { failure in
            [
                "run": String(failure.run), "outcome": failure.result.outcome.rawValue, "message": TestText.headline(failure.result),
                "location": failure.result.primaryLocation.map { "\(paths.relative($0.file)):\($0.line)" as Any } ?? false,
            ]
        }
        let evidence: [HTMLModels.Model] = f.evidence.map { step in
            ["label": step.label, "verdicts": step.verdicts.map(\.rawValue).joined(separator: ", "),
             "tests": step.order.map { ["name": $0, "self": $0 == f.id] as HTMLModels.Model }]
        }
        return [
            "id": f.id, "anchor": anchor, "classification": f.classification.rawValue, "quarantined": f.quarantined,
            "failed": String(f.failedRuns), "runs": String(f.runs), "framework": f.framework.rawValue, "method": f.method.rawValue,
            "culprits": culprits.isEmpty ? false : culprits as Any,
            "reproduce": reproduce.map { $0.testscope as Any } ?? false, "reproduceBinary": reproduce.map { $0.binary as Any } ?? false,
            "note": f.note.map { $0 as Any } ?? false,
            "failingOrder": order(f.failingOrder), "passingOrder": order(f.passingOrder),
            "failures": failures, "hasFailures": !failures.isEmpty, "evidence": evidence, "hasEvidence": !evidence.isEmpty,
        ]
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
