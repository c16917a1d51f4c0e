import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports

/// Golden HTML of every fixture package: index.html and every file page (the time is fixed at the
/// epoch, absolute paths become $REPO). `RECORD_GOLDENS=1` rewrites them; a missing one fails.
final class HTMLGoldenTests: XCTestCase {
    func testHTMLGoldens() throws {
        for sample in HTMLTestSupport.samples {
            let report = try HTMLTestSupport.report(sample)
            let folder = try HTMLTestSupport.temporaryFolder("golden")
            defer { try? FileManager.default.removeItem(at: folder) }
            try HTMLTestSupport.htmlReport().writePages(report, into: OutputFolder(folder))
            let pages = ["index.html"] + HTMLPageNames.pages(for: report.files.map(\.relativePath)).map { "files/" + $0 }
            for page in pages {
                let html = try HTMLTestSupport.read(folder.appendingPathComponent(page))
                XCTAssertTrue(html.contains("1970-01-01T00:00:00Z"), "the fixed creation time")
                try Golden.assertMatches(ReportGoldenTests.normalized(html), "\(sample)/html/\(page)")
            }
            let goldenFiles = Golden.directory.appendingPathComponent("\(sample)/html/files")
            let recorded = (try? FileManager.default.contentsOfDirectory(atPath: goldenFiles.path)) ?? []
            XCTAssertEqual(Set(recorded.map { "files/" + $0 }), Set(pages.dropFirst()), "\(sample): no golden of a page that is gone")
        }
    }
}
