import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeTestResults

/// `flaky.json` (documented in docs/flaky-json.md): the seed and plan, every run's order and outcomes,
/// and per test its classification, culprits, reproduction commands and evidence.
package struct FlakyJSONReport: ReportRenderer {
    package var fileName: String { "flaky.json" }
    package var paths: PathDisplay

    package init(packageRoot: String) { paths = PathDisplay(root: packageRoot) }

    package func render<Output: TextOutput>(_ report: FlakyReport, to out: inout Output) throws {
        let s = JSONReport.string
        try out.write("{\n")
        try out.write("  \"schema\": \"https://testscope.dev/schemas/flaky/1\",\n")
        try out.write("  \"seed\": \(report.seed),\n")
        try out.write("  \"runs\": \(report.orders.count),\n")
        try out.write("  \"jobs\": \(report.jobs),\n")
        try out.write("  \"package\": \(s(report.packageRoot)),\n")
        try out.write("  \"binary\": \(s(report.binary)),\n")
        try out.write("  \"swiftTestingMethod\": \(s(report.swiftTestingMethod.rawValue)),\n")
        try out.write("  \"modes\": \(Self.array(report.modes.map(\.rawValue))),\n")
        try out.write("  \"createdAt\": \(s(Self.iso(report.startedAt))),\n")
        try out.write("  \"seconds\": {\"build\": \(Self.number(report.buildSeconds)), \"detection\": \(Self.number(report.detectionSeconds)), \"analysis\": \(Self.number(report.analysisSeconds)), \"stateSearch\": \(Self.number(report.stateSearchSeconds)), \"fixes\": \(Self.number(report.fixSeconds))},\n")
        var counts = FlakyClassification.allCases.map { "\(s($0.rawValue)): \(report.count($0))" }
        counts.append("\"flaky\": \(report.findings.filter { $0.classification.isFlaky }.count)")
        counts.append("\"quarantined\": \(report.findings.filter(\.quarantined).count)")
        try out.write("  \"summary\": {\(counts.joined(separator: ", "))},\n")
        try out.write("  \"orders\": [\n")
        for (index, order) in report.orders.enumerated() {
            let execution = report.executions[index]
            let outcomes = order.tests.map { FlakyText.outcome(report, run: index, test: $0) }
            try out.write("    {\"run\": \(order.index), \"kind\": \(s(order.kind.rawValue)), \"runSeed\": \(order.runSeed.map { s(OrderPlan.hex($0)) } ?? "null"), \"mode\": \(s(order.mode.rawValue)), ")
            try out.write("\"processes\": \(execution.processes.count), \"seconds\": \(Self.number(execution.seconds)), ")
            try out.write("\"replay\": \(s(FlakyText.replay(report, run: index))),\n")
            try out.write("     \"tests\": \(Self.array(order.tests)),\n")
            try out.write("     \"outcomes\": \(Self.array(outcomes))}\(index + 1 < report.orders.count ? "," : "")\n")
        }
        try out.write("  ],\n")
        try out.write("  \"tests\": [\n")
        for (index, finding) in report.findings.enumerated() {
            try writeFinding(finding, report: report, to: &out)
            try out.write(index + 1 < report.findings.count ? ",\n" : "\n")
        }
        try out.write("  ]\n}\n")
    }

    private func writeFinding<Output: TextOutput>(_ f: TestFinding, report: FlakyReport, to out: inout Output) throws {
        let s = JSONReport.string
        let reproduce = report.reproduce(f)
        try out.write("    {\"id\": \(s(f.id)), \"framework\": \(s(f.framework.rawValue)), \"classification\": \(s(f.classification.rawValue)), ")
        try out.write("\"method\": \(s(f.method.rawValue)), \"failedRuns\": \(f.failedRuns), \"runs\": \(f.runs), \"quarantined\": \(f.quarantined),\n")
        try out.write("     \"runsToFirstFailure\": \(f.runsToFirstFailure.map(String.init) ?? "null"), "
            + "\"failureRateBound\": \(f.failureRateBound.map { String(format: "%.4f", $0) } ?? "null"), "
            + "\"confidence\": \(f.confidence(modes: report.orders.map(\.mode)).map(s) ?? "null"),\n")
        let outcomes = report.executions.map { $0.results[f.id].map { s($0.outcome.rawValue) } ?? "null" }
        try out.write("     \"outcomes\": [\(outcomes.joined(separator: ", "))],\n")
        let byMode = FlakyText.failuresByMode(f, report).map { "\(s($0.mode.rawValue)): {\"failed\": \($0.failed), \"runs\": \($0.ran)}" }
        try out.write("     \"failuresByMode\": {\(byMode.joined(separator: ", "))},\n")
        try out.write("     \"polluters\": \(Self.array(f.polluters)), \"setters\": \(Self.array(f.setters)), \"cleaners\": \(Self.array(f.cleaners)),\n")
        try out.write("     \"polluterGroups\": [\(f.polluterGroups.map(Self.array).joined(separator: ", "))], \"setterGroups\": [\(f.setterGroups.map(Self.array).joined(separator: ", "))],\n")
        try out.write("     \"reproduce\": \(reproduce.map { s($0.testscope) } ?? "null"), \"reproduceBinary\": \(reproduce.map { s($0.binary) } ?? "null"),\n")
        try out.write("     \"failingOrder\": \(f.failingOrder.map(Self.array) ?? "null"), \"passingOrder\": \(f.passingOrder.map(Self.array) ?? "null"),\n")
        let failures = f.failures.map { failure -> String in
            let location = failure.result.primaryLocation.map { "\(paths.relative($0.file)):\($0.line)" }
            return "{\"run\": \(failure.run), \"outcome\": \(s(failure.result.outcome.rawValue)), \"message\": \(s(TestText.headline(failure.result))), \"location\": \(location.map(s) ?? "null")}"
        }
        try out.write("     \"failures\": [\(failures.joined(separator: ", "))],\n")
        let evidence = f.evidence.map { step in
            "{\"step\": \(s(step.label)), \"order\": \(Self.array(step.order)), \"results\": \(Self.array(step.verdicts.map(\.rawValue)))}"
        }
        try out.write("     \"evidence\": [\(evidence.joined(separator: ", "))],\n")
        try out.write("     \"sharedState\": \(f.sharedState.map(Self.sharedState) ?? "null"),\n")
        try out.write("     \"fix\": \(f.fix.map(Self.fix) ?? "null"),\n")
        try out.write("     \"analysisRuns\": \(f.analysisRuns), \"note\": \(f.note.map(s) ?? "null")}")
    }

    /// `{"source": "cleaner", "file": …, "diff": …, "verification": "verified", "verifiedRuns": 3, "why": null}`.
    static func fix(_ fix: ProposedFix) -> String {
        let s = JSONReport.string
        var runs = "null", why = "null"
        if case let .verified(count) = fix.verification { runs = String(count) }
        if case let .notVerified(text) = fix.verification { why = s(text) }
        return "{\"source\": \(s(fix.source.rawValue)), \"file\": \(s(fix.file)), \"diff\": \(s(fix.diff)), "
            + "\"verification\": \(s(fix.verification.status)), \"verifiedRuns\": \(runs), \"why\": \(why)}"
    }

    /// `{"items": [...], "outsideProcess": false, "outsideEvidence": [], "note": null}`.
    static func sharedState(_ state: SharedStateFinding) -> String {
        let s = JSONReport.string
        func sites(_ sites: [SourceSite]) -> String { "[" + sites.map { "{\"file\": \(s($0.file)), \"line\": \($0.line)}" }.joined(separator: ", ") + "]" }
        func item(_ item: SharedStateItem) -> String {
            "{\"name\": \(s(item.name)), \"kind\": \(s(item.kind.rawValue)), \"writeSites\": \(sites(item.writeSites)), "
                + "\"readSites\": \(sites(item.readSites)), \"resetStatement\": \(item.resetStatement.map(s) ?? "null")}"
        }
        return "{\"items\": [\(state.items.map(item).joined(separator: ", "))], \"outsideProcess\": \(state.outsideProcess), "
            + "\"outsideEvidence\": [\(state.outsideEvidence.map(item).joined(separator: ", "))], \"note\": \(state.note.map(s) ?? "null")}"
    }

    static func array(_ values: [String]) -> String { "[" + values.map(JSONReport.string).joined(separator: ", ") + "]" }

    static func number(_ value: Double) -> String { Format.fixed(value, decimals: 3) }

    static func iso(_ date: Date) -> String {
        UTCTimestamp.iso8601(date)
    }
}
