import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports

/// Helpers of the HTML report tests: the recorded samples' models, reports written into temporary
/// folders, and the rows of a rendered file page.
enum HTMLTestSupport {
    static let samples = ["Shapes", "Inventory", "Hostile"]

    static func report(_ sample: String) throws -> CoverageModel {
        try ReportGoldenTests.report(sample)
    }

    static func htmlReport(singleFile: Bool = false, navigation: [HTMLNavigationItem] = [.coverage]) throws -> HTMLReport {
        HTMLReport(templates: try HTMLTemplates.builtIn(), watermarks: Watermarks(low: 50, high: 80), singleFile: singleFile,
                   navigation: navigation, generatorVersion: "test")
    }

    static func temporaryFolder(_ name: String = "html") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func read(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    /// One `<tr id="L…">` row of the annotated source.
    struct SourceRow: Equatable {
        var line: UInt32
        var state: String
        var count: String
        var exact: String
        var code: String
    }

    /// The source rows of a file page, parsed from the markup of `source-line.mustache`.
    static func sourceRows(_ html: String, anchorPrefix: String = "") throws -> [SourceRow] {
        let pattern = #"<tr id="\#(anchorPrefix)L(\d+)" class="([a-z]*)"><td class="ln">\d+</td><td class="cnt" title="([^"]*)">([^<]*)</td><td class="code">(.*)</td></tr>"#
        let regex = try NSRegularExpression(pattern: pattern)
        let ns = html as NSString
        return regex.matches(in: html, range: NSRange(location: 0, length: ns.length)).map { match in
            SourceRow(line: UInt32(ns.substring(with: match.range(at: 1)))!, state: ns.substring(with: match.range(at: 2)),
                      count: ns.substring(with: match.range(at: 4)), exact: ns.substring(with: match.range(at: 3)),
                      code: ns.substring(with: match.range(at: 5)))
        }
    }

    /// Text of HTML markup: tags removed, the five entities decoded.
    static func text(_ html: String) -> String {
        let stripped = html.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        return stripped.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension ReportRenderer where Subject == CoverageReport {
    /// A summary-only output of a whole model: it reads the model's report, as the Kit gives it.
    func renderString(_ model: CoverageModel) throws -> String { try renderString(model.report) }
}
