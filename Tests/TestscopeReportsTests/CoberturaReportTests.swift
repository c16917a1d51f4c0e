import Foundation
import XCTest
import TestscopeTestSupport
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports

/// cobertura.xml on the recorded samples, read back by its consumers: xmllint against the
/// coverage-04 DTD, pycobertura (PyPI) and our own structural checks against the model.
final class CoberturaReportTests: XCTestCase {
    static let samples = ["Shapes", "Inventory", "Hostile"]

    static func renderer(for sample: String) -> CoberturaReport {
        let root = ReportGoldenTests.repoRoot.appendingPathComponent("sample-profiles/packages/\(sample)")
        return CoberturaReport(sourceRoot: RepositoryRoot.find(from: root).path, generatorVersion: "test")
    }

    func temporaryFile(_ text: String, name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cobertura-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func testValidAgainstTheCoverage04DTD() throws {
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment),
                                    "xmllint is required (apt-get install libxml2-utils)")
        for sample in Self.samples {
            let file = try temporaryFile(try Self.renderer(for: sample).renderString(try ReportGoldenTests.report(sample)), name: "cobertura.xml")
            for dtd in ConsumerSchemas.coberturaDTD {
                let result = try ProcessRunner.run(xmllint, ["--noout", "--dtdvalid", dtd.path, file.path])
                XCTAssertEqual(result.status, 0, "\(sample), \(dtd.lastPathComponent): \(result.stderrText)")
                XCTAssertEqual(result.stderrText, "", sample)
            }
        }
    }

    /// Packages are targets, classes files with repository-relative names, every line's hits the
    /// model's count, methods the demangled functions with their lines, and the rates agree with the lines.
    func testStructureFollowsTheModel() throws {
        for sample in Self.samples {
            let report = try ReportGoldenTests.report(sample)
            let renderer = Self.renderer(for: sample)
            let xml = try XMLElements.parse(try renderer.renderString(report))
            let root = try XCTUnwrap(xml.named("coverage").first)
            XCTAssertEqual(root.attributes["lines-valid"], String(report.totals.lines.total))
            XCTAssertEqual(root.attributes["lines-covered"], String(report.totals.lines.covered))
            XCTAssertEqual(root.attributes["branch-rate"], "0")
            XCTAssertEqual(root.attributes["branches-valid"], "0")
            XCTAssertEqual(root.attributes["branches-covered"], "0")
            XCTAssertEqual(root.attributes["timestamp"], "0", "the model's creation time (1970 in the fixture)")
            XCTAssertEqual(root.attributes["version"], "testscope test")
            XCTAssertEqual(xml.named("source").map(\.text), [renderer.sourceRoot])
            XCTAssertEqual(Set(xml.named("package").compactMap { $0.attributes["name"] }), Set(report.files.compactMap(\.target)), sample)

            let classes = xml.named("class")
            XCTAssertEqual(classes.count, report.files.count)
            let lines = xml.elements.filter { $0.name == "line" && $0.ancestors.last == "lines" && $0.ancestors.dropLast().last == "class" }
            var offset = 0
            for (element, file) in zip(classes, report.files) {
                let filename = try XCTUnwrap(element.attributes["filename"])
                XCTAssertFalse(filename.hasPrefix("/"), filename)
                XCTAssertEqual(renderer.sourceRoot + "/" + filename, file.path, "filename is relative to <source>")
                XCTAssertTrue(filename.hasSuffix(file.relativePath), "\(filename) is the file, from the repository root")
                let own = lines[offset..<offset + file.lines.count]
                offset += file.lines.count
                XCTAssertEqual(own.map { $0.attributes["number"] }, file.lines.map { String($0.line) })
                XCTAssertEqual(own.map { $0.attributes["hits"] }, file.lines.map { String($0.count) }, "real counts, not 0/1")
                let rate = try XCTUnwrap(Double(try XCTUnwrap(element.attributes["line-rate"])))
                let hit = own.filter { $0.attributes["hits"] != "0" }.count
                XCTAssertEqual(rate, own.isEmpty ? 1 : Double(hit) / Double(own.count), accuracy: 0.00005, filename)
            }
            XCTAssertEqual(offset, lines.count)
            let methods = xml.named("method")
            XCTAssertEqual(methods.compactMap { $0.attributes["name"] }, report.files.flatMap { $0.functions.map(\.name) })
            XCTAssertEqual(methods.compactMap { $0.attributes["signature"] }, report.files.flatMap { $0.functions.map(\.mangledName) })
            XCTAssertFalse(methods.contains { $0.attributes["name"]?.hasPrefix("$s") == true }, "demangled")
        }
        // A method's line is the function's declaration, with the times it was entered.
        let report = try ReportGoldenTests.report("Shapes")
        let xml = try XMLElements.parse(try Self.renderer(for: "Shapes").renderString(report))
        let methodLines = xml.elements.filter { $0.name == "line" && $0.ancestors.contains("method") }
        let functions = report.files.flatMap(\.functions)
        XCTAssertEqual(methodLines.map { $0.attributes["number"] }, functions.map { String($0.line) })
        XCTAssertEqual(methodLines.map { $0.attributes["hits"] }, functions.map { String($0.count) })
        XCTAssertTrue(functions.contains { $0.count > 1 }, "real entry counts are checked")
    }

    /// pycobertura (PyPI) reads the file: its totals and per-file statements and misses are ours.
    func testPycoberturaReadsOurNumbers() throws {
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let script = """
        import json, sys
        from pycobertura import Cobertura
        c = Cobertura(sys.argv[1])
        files = {f: [c.total_statements(f), c.total_misses(f), c.line_rate(f)] for f in c.files()}
        print(json.dumps({"rate": c.line_rate(), "statements": c.total_statements(), "misses": c.total_misses(), "files": files}))
        """
        for sample in Self.samples {
            let report = try ReportGoldenTests.report(sample)
            let renderer = Self.renderer(for: sample)
            let file = try temporaryFile(try renderer.renderString(report), name: "cobertura.xml")
            let result = try ProcessRunner.run(python, ["-c", script, file.path])
            XCTAssertEqual(result.status, 0, "pycobertura is required (python3 -m pip install pycobertura): \(result.stderrText)")
            let read = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            let totals = report.totals.lines
            XCTAssertEqual(try XCTUnwrap(read["rate"] as? Double), Double(totals.covered) / Double(totals.total), accuracy: 0.00005, sample)
            XCTAssertEqual(read["statements"] as? Int, totals.total, sample)
            XCTAssertEqual(read["misses"] as? Int, totals.missed, sample)
            let files = try XCTUnwrap(read["files"] as? [String: [Double]])
            XCTAssertEqual(files.count, report.files.count)
            for model in report.files {
                let numbers = try XCTUnwrap(files[RepositoryRoot.relative(model.path, to: renderer.sourceRoot)], model.relativePath)
                XCTAssertEqual(numbers[0], Double(model.summary.lines.total), model.relativePath)
                XCTAssertEqual(numbers[1], Double(model.summary.lines.missed), model.relativePath)
                if let percent = model.summary.lines.percent { XCTAssertEqual(numbers[2], percent / 100, accuracy: 0.00005) }
            }
        }
    }

    /// diff-cover (PyPI) on our cobertura.xml and a real git diff that adds the second half of an
    /// Inventory file: it measures exactly the executable lines of ours in that half, and misses ours' misses.
    func testDiffCoverMeasuresTheChangedLinesAsWeDo() throws {
        let env = ProcessInfo.processInfo.environment
        let git = try XCTUnwrap(Toolchain.findInPath("git", environment: env))
        let diffCover = try XCTUnwrap(Toolchain.findInPath("diff-cover", environment: env), "diff-cover is required (python3 -m pip install diff-cover)")
        let report = try ReportGoldenTests.report("Inventory")
        let renderer = Self.renderer(for: "Inventory")
        // The file with both covered and missed lines, most missed first.
        let file = try XCTUnwrap(report.files.filter { $0.summary.lines.covered > 0 && $0.summary.lines.missed > 0 }
            .max { $0.summary.lines.missed < $1.summary.lines.missed })
        let relative = RepositoryRoot.relative(file.path, to: renderer.sourceRoot)
        let source = try String(contentsOfFile: file.path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let cut = Int(file.lines[file.lines.count / 2].line) - 1    // lines after `cut` are the change

        let repo = FileManager.default.temporaryDirectory.appendingPathComponent("diff-cover-\(UUID().uuidString)")
        let target = repo.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: repo) }
        func run(_ tool: URL, _ arguments: [String]) throws -> ProcessResult {
            let result = try ProcessRunner.run(tool, arguments, currentDirectory: repo)
            XCTAssertEqual(result.status, 0, "\(tool.lastPathComponent) \(arguments): \(result.stderrText)")
            return result
        }
        let identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
        _ = try run(git, ["init", "-q", "-b", "main"])
        try (source.prefix(cut).joined(separator: "\n") + "\n").write(to: target, atomically: true, encoding: .utf8)
        _ = try run(git, ["add", "."])
        _ = try run(git, identity + ["commit", "-q", "-m", "base"])
        _ = try run(git, ["checkout", "-q", "-b", "change"])
        try source.joined(separator: "\n").write(to: target, atomically: true, encoding: .utf8)
        _ = try run(git, identity + ["commit", "-q", "-am", "change"])
        let xml = repo.appendingPathComponent("cobertura.xml")
        try renderer.renderString(report).write(to: xml, atomically: true, encoding: .utf8)
        let json = repo.appendingPathComponent("diff-cover.json")
        _ = try run(diffCover, [xml.path, "--compare-branch=main", "--format", "json:\(json.path)"])

        let read = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        let changed = file.lines.filter { $0.line > UInt32(cut) }
        let missed = changed.filter { !$0.isCovered }
        XCTAssertGreaterThan(changed.count, 0)
        XCTAssertEqual(read["total_num_lines"] as? Int, changed.count, "\(read)")
        XCTAssertEqual(read["total_num_violations"] as? Int, missed.count, "\(read)")
        let stats = try XCTUnwrap((read["src_stats"] as? [String: Any])?[relative] as? [String: Any], "\(read)")
        XCTAssertEqual((stats["violation_lines"] as? [Int])?.sorted(), missed.map { Int($0.line) })
    }

    /// Over the size limit, one file per target, each valid and together the whole; the note says so.
    func testSplitsPerTargetOverTheLimit() throws {
        let report = try ReportGoldenTests.report("Inventory")
        let renderer = Self.renderer(for: "Inventory")
        let whole = try renderer.renderString(report)
        let folder = OutputFolder(FileManager.default.temporaryDirectory.appendingPathComponent("cobertura-split-\(UUID().uuidString)"))
        try folder.prepare()
        defer { try? FileManager.default.removeItem(at: folder.url) }

        let fits = try CoberturaFiles(renderer: renderer, limit: whole.utf8.count).write(report, into: folder)
        XCTAssertEqual(fits.paths.map { URL(fileURLWithPath: $0).lastPathComponent }, ["cobertura.xml"])
        XCTAssertNil(fits.diagnostic)

        let split = try CoberturaFiles(renderer: renderer, limit: whole.utf8.count - 1).write(report, into: folder)
        let names = split.paths.map { URL(fileURLWithPath: $0).lastPathComponent }
        XCTAssertEqual(names, report.targets.map { "cobertura-\($0.name).xml" })
        XCTAssertGreaterThan(names.count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("cobertura.xml").path), "no file counted twice")
        let diagnostic = try XCTUnwrap(split.diagnostic)
        XCTAssertEqual(diagnostic.kind, .note)
        XCTAssertTrue(diagnostic.message.contains("over GitLab's 10 MiB limit") && diagnostic.message.contains(names[0]), diagnostic.message)
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment))
        var classes: [String] = []
        for path in split.paths {
            for dtd in ConsumerSchemas.coberturaDTD {
                let result = try ProcessRunner.run(xmllint, ["--noout", "--dtdvalid", dtd.path, path])
                XCTAssertEqual(result.status, 0, result.stderrText)
            }
            let xml = try XMLElements.parse(try String(contentsOfFile: path, encoding: .utf8))
            XCTAssertEqual(xml.named("package").count, 1)
            classes += xml.named("class").compactMap { $0.attributes["filename"] }
        }
        XCTAssertEqual(classes, try XMLElements.parse(whole).named("class").compactMap { $0.attributes["filename"] })

        // Fitting again removes the earlier split files.
        _ = try CoberturaFiles(renderer: renderer).write(report, into: folder)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("cobertura") }, ["cobertura.xml"])
    }

    func testRatesNeverRoundUpToFull() {
        XCTAssertEqual(CoberturaReport.rate(CoverageRatio(covered: 0, total: 0)), "1")
        XCTAssertEqual(CoberturaReport.rate(CoverageRatio(covered: 99_999, total: 100_000)), "0.9999")
        XCTAssertEqual(CoberturaReport.rate(CoverageRatio(covered: 1, total: 3)), "0.3333")
        XCTAssertEqual(CoberturaReport.rate(CoverageRatio(covered: 4, total: 4)), "1.0000")
        XCTAssertEqual(CoberturaFiles.splitName("My Target/../x"), "cobertura-My_Target_.._x.xml")
        XCTAssertEqual(CoberturaFiles.splitName(".."), "cobertura-_...xml")
    }

    func testRepositoryRootIsTheGitTopLevelElseThePackage() throws {
        let root = ReportGoldenTests.repoRoot.appendingPathComponent("sample-profiles/packages/Shapes")
        XCTAssertEqual(RepositoryRoot.find(from: root).path, ReportGoldenTests.repoRoot.standardizedFileURL.path)
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("no-git-\(UUID().uuidString)/pkg")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside.deletingLastPathComponent()) }
        XCTAssertEqual(RepositoryRoot.find(from: outside).path, outside.standardizedFileURL.path)
    }
}
