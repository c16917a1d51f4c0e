import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports

/// The streamed formats (`JSONStream`, `LCOVStream`, `HTMLFileStream`) against the whole-model
/// renderers on every recorded sample: the files given in batches of 1, 2 and all, the model reduced
/// to its files' summaries before `finish` (as `run` and `report` hand it over).
final class FileStreamTests: XCTestCase {
    /// Adds `report`'s files to `streams` `batch` at a time, then finishes them with the summaries only.
    func stream(_ report: CoverageModel, batch: Int, into streams: [any CoverageFileStream]) throws -> [String] {
        var start = 0
        while start < report.files.count {
            let part = Array(report.files[start..<min(start + batch, report.files.count)])
            for stream in streams { try stream.add(part) }
            start += batch
        }
        return try streams.flatMap { try $0.finish(report.report) }
    }

    func testStreamedJSONAndLCOVAreTheWholeModelsBytes() throws {
        var largest = 0
        defer { XCTAssertGreaterThan(largest, 2, "a sample with files in several batches") }
        for sample in HTMLTestSupport.samples {
            let report = try HTMLTestSupport.report(sample)
            largest = max(largest, report.files.count)
            let json = try JSONReport(generatorVersion: "test").renderString(report)
            let lcov = try LCOVReport().renderString(report)
            for batch in [1, 2, report.files.count] {
                let folder = try HTMLTestSupport.temporaryFolder("stream")
                defer { try? FileManager.default.removeItem(at: folder) }
                let output = OutputFolder(folder)
                let written = try stream(report, batch: batch, into: [try JSONStream(JSONReport(generatorVersion: "test"), metadata: report.metadata, into: output),
                                                                      try LCOVStream(into: output)])
                XCTAssertEqual(written.map { URL(fileURLWithPath: $0).lastPathComponent }, ["coverage.json", "coverage.lcov"])
                XCTAssertEqual(try HTMLTestSupport.read(folder.appendingPathComponent("coverage.json")), json, "\(sample), batches of \(batch)")
                XCTAssertEqual(try HTMLTestSupport.read(folder.appendingPathComponent("coverage.lcov")), lcov, "\(sample), batches of \(batch)")
                XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["coverage.json", "coverage.lcov"],
                               "no temporary file is left")
            }
        }
    }

    func testStreamedHTMLPagesAreTheWholeModelsPages() throws {
        for sample in HTMLTestSupport.samples {
            let report = try HTMLTestSupport.report(sample)
            let html = try HTMLTestSupport.htmlReport()
            let whole = try HTMLTestSupport.temporaryFolder("whole")
            defer { try? FileManager.default.removeItem(at: whole) }
            let wholePaths = try html.writePages(report, into: OutputFolder(whole))
            let pages = try contents(of: whole)
            XCTAssertEqual(pages.count, report.files.count + 3, "\(sample): index, files, the two assets")
            for batch in [1, 2] {
                let folder = try HTMLTestSupport.temporaryFolder("stream")
                defer { try? FileManager.default.removeItem(at: folder) }
                let stream = try HTMLFileStream(html, metadata: report.metadata, diffBase: nil, changes: { _ in nil }, into: OutputFolder(folder))
                let paths = try self.stream(report, batch: batch, into: [stream])
                XCTAssertEqual(paths.map { $0.replacingOccurrences(of: folder.path, with: "") },
                               wholePaths.map { $0.replacingOccurrences(of: whole.path, with: "") })
                let streamed = try contents(of: folder)
                XCTAssertEqual(streamed.keys.sorted(), pages.keys.sorted(), sample)
                for (page, text) in pages { XCTAssertEqual(streamed[page], text, "\(sample) \(page), batches of \(batch)") }
            }
        }
    }

    /// Every file under `folder` by its relative path.
    func contents(of folder: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        let base = folder.resolvingSymlinksInPath().path
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            result[String(url.resolvingSymlinksInPath().path.dropFirst(base.count + 1))] = try HTMLTestSupport.read(url)
        }
        return result
    }
}
