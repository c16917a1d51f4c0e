import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports

/// A counter expression that went negative (the compiler's mapping, or a counter race) is unknown,
/// not covered: llvm-cov export writes 2^63−1 for it. On the recorded Shapes export with one region's
/// count replaced by that value (as export writes it), every format says so instead of inventing a count.
final class UnreliableCountTests: XCTestCase {
    static let repoRoot = ReportGoldenTests.repoRoot

    /// The recorded Shapes export with the first counted region entry of `Shape.swift` past line 30
    /// given export's value for a negative counter; returns the model and the line it starts on.
    func raceReport(_ cause: NegativeCountCause = .unknown) throws -> (CoverageModel, UInt32, URL) {
        let recorded = Self.repoRoot.appendingPathComponent("sample-profiles/recorded/Shapes")
        var export = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: recorded.appendingPathComponent("coverage.json"))) as? [String: Any])
        var data = try XCTUnwrap(export["data"] as? [[String: Any]])
        var files = try XCTUnwrap(data[0]["files"] as? [[String: Any]])
        let index = try XCTUnwrap(files.firstIndex { ($0["filename"] as? String)?.hasSuffix("Sources/Shapes/Shape.swift") == true })
        var segments = try XCTUnwrap(files[index]["segments"] as? [[Any]])
        let target = try XCTUnwrap(segments.firstIndex { ($0[0] as? Int ?? 0) > 30 && ($0[2] as? Int ?? 0) > 0 && ($0[3] as? Bool ?? false) && ($0[4] as? Bool ?? false) })
        segments[target][2] = Int64.max
        files[index]["segments"] = segments
        data[0]["files"] = files
        export["data"] = data
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("coverage.json")
        try JSONSerialization.data(withJSONObject: export).write(to: url)

        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded.appendingPathComponent("meta.json"))) as? [String: Any]
        let root = Self.repoRoot.appendingPathComponent("sample-profiles/packages/Shapes")
        var options = CoverageBuildOptions(
            packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
            pathEquivalences: [PathEquivalence(from: try XCTUnwrap(meta?["packageRoot"] as? String), to: root.path)],
            createdAt: Date(timeIntervalSince1970: 0))
        options.negativeCounts = cause
        return (try CoverageBuilder(options: options).build(exports: [url]), UInt32(try XCTUnwrap(segments[target][0] as? Int)), folder)
    }

    func testARacedCountIsUnknownEverywhereAndNotCovered() throws {
        let (report, line, folder) = try raceReport()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clean = try ReportGoldenTests.report("Shapes")
        let file = try XCTUnwrap(report.files.first { $0.relativePath == "Sources/Shapes/Shape.swift" })
        let cleanFile = try XCTUnwrap(clean.files.first { $0.relativePath == "Sources/Shapes/Shape.swift" })
        let raced = file.lines.filter(\.isUnreliable)
        XCTAssertTrue(raced.contains { $0.line == line }, "\(raced)")
        XCTAssertFalse(raced.contains(where: \.isCovered))
        // Every raced line was covered in the real recording; now none of them counts as covered.
        XCTAssertEqual(file.summary.lines.covered, cleanFile.summary.lines.covered - raced.count)
        XCTAssertEqual(file.unreliableRanges.flatMap { Array($0) }.filter { r in raced.contains { $0.line == r } }.count, raced.count)
        // One warning names the lines and both possible causes (how the profile was recorded is not known).
        let unknown = report.warnings.filter { $0.message.contains("unknown count") }
        XCTAssertEqual(unknown.count, 1, "\(report.warnings)")
        XCTAssertTrue(unknown.first?.message.contains("Sources/Shapes/Shape.swift:\(file.unreliableRanges.lineRangesText)") == true, "\(unknown)")
        XCTAssertTrue(unknown.first?.message.contains("the compiler's coverage mapping") == true, "\(unknown)")
        XCTAssertTrue(unknown.first?.message.contains("a counter race") == true, "\(unknown)")

        let json = try JSONReport(generatorVersion: "test").renderString(report)
        XCTAssertTrue(json.contains("{\"line\": \(line), \"count\": null, \"unreliable\": true}"))
        XCTAssertTrue(json.contains("\"unreliableLines\": [[\(file.unreliableRanges[0].lowerBound), \(file.unreliableRanges[0].upperBound)]"))
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json.utf8)))

        let lcov = try LCOVReport().renderString(report)
        XCTAssertTrue(lcov.contains("DA:\(line),0\n"), lcov)
        XCTAssertFalse(lcov.contains(String(Int64.max)))

        // Cobertura: hits 0 (the warning above says why); SonarQube: not covered.
        let cobertura = try CoberturaReport(sourceRoot: "/", generatorVersion: "test").renderString(report)
        XCTAssertTrue(cobertura.contains("<line number=\"\(line)\" hits=\"0\"/>"), cobertura)
        XCTAssertFalse(cobertura.contains(String(Int64.max)))
        let sonar = try SonarQubeCoverageReport(sourceRoot: "/").renderString(report)
        XCTAssertTrue(sonar.contains("<lineToCover lineNumber=\"\(line)\" covered=\"false\"/>"), sonar)

        let html = try HTMLTestSupport.htmlReport(singleFile: true).renderString(report)
        XCTAssertTrue(html.contains("L\(line)\" class=\"unr\"><td class=\"ln\">\(line)</td><td class=\"cnt\" title=\"unknown: a counter expression went negative"),
                      "no unknown-count row for line \(line)")
        XCTAssertFalse(html.contains("L\(line)\" class=\"cov\""))
        XCTAssertTrue(html.contains(">\(raced.count) unknown</span>"))
    }

    /// The warning says which cause the run left: atomic counters rule a race out (then it is the
    /// compiler's mapping); a build without them may have raced — in parallel tests, and also in serial
    /// ones, whose own threads share the counters (the Concurrency fixture's hammer test does).
    func testTheWarningNamesOnlyTheCausesTheRunLeaves() throws {
        for (cause, race, reason) in [(NegativeCountCause.atomicCounters, false, "updated atomically"),
                                      (.serialTests, true, "a test's own threads"), (.parallelTests, true, "ran in parallel")] {
            let (report, _, folder) = try raceReport(cause)
            defer { try? FileManager.default.removeItem(at: folder) }
            let warnings = report.warnings.filter { $0.message.contains("unknown count") }
            XCTAssertEqual(warnings.count, 1, "\(cause): \(report.warnings)")
            let message = warnings.first?.message ?? ""
            XCTAssertTrue(message.contains("the compiler's coverage mapping"), message)
            XCTAssertTrue(message.contains(reason), message)
            XCTAssertEqual(message.contains("not a counter race"), !race, message)
            XCTAssertEqual(message.contains("or a counter race"), race, message)
        }
    }

    /// The real thing: the Concurrency fixture's racy run (recorded by record-native.sh), where
    /// `llvm-cov show` prints 18.4E on the `else` that never runs: exactly those lines are unknown.
    func testTheRecordedCounterRaceIsUnknownWhereLLVMCovShowPrintsAWrappedCount() throws {
        let recorded = Self.repoRoot.appendingPathComponent("sample-profiles/recorded/Concurrency")
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded.appendingPathComponent("meta.json"))) as? [String: Any]
        let recordedRoot = try XCTUnwrap(meta?["packageRoot"] as? String)
        let root = Self.repoRoot.appendingPathComponent("sample-profiles/packages/Concurrency")
        let options = CoverageBuildOptions(
            packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
            pathEquivalences: [PathEquivalence(from: recordedRoot, to: root.path)], createdAt: Date(timeIntervalSince1970: 0))
        let report = try CoverageBuilder(options: options).build(exports: [recorded.appendingPathComponent("coverage-race.json")])

        // The lines show-race.txt prints with a wrapped (≥ 2^63) count, per file.
        var wrapped: [String: Set<UInt32>] = [:]
        var current: String?
        for line in try String(contentsOf: recorded.appendingPathComponent("show-race.txt"), encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("/") && line.hasSuffix(":") { current = String(line.dropLast()).replacingOccurrences(of: recordedRoot, with: root.path); continue }
            let columns = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard let current, columns.count == 3, let number = UInt32(columns[0].trimmingCharacters(in: .whitespaces)),
                  columns[1].trimmingCharacters(in: .whitespaces).hasSuffix("E") else { continue }
            wrapped[current, default: []].insert(number)
        }
        XCTAssertFalse(wrapped.isEmpty, "the recording has no wrapped count")
        for file in report.files {
            XCTAssertEqual(Set(file.lines.filter(\.isUnreliable).map(\.line)), wrapped[file.path] ?? [], file.relativePath)
        }
        let json = try JSONReport(generatorVersion: "test").renderString(report)
        XCTAssertTrue(json.contains("\"count\": null, \"unreliable\": true"))
        XCTAssertTrue(report.warnings.contains { $0.message.contains("counter race") })
        XCTAssertEqual(report.metadata.reader, "llvm-cov export (given)")
    }
}
