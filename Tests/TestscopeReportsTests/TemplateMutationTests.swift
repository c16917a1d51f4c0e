import Foundation
@testable import TestscopeReports
import TestscopeTemplates
import TestscopeTestSupport
import XCTest

/// Seeded mutations of the real templates (`templates/*.mustache`) through the template loader and, when
/// they load, the renderer on a real report: a report or a `ReportError`, never a trap (the Mustache
/// parser overflowed its stack on deep nesting) or a hang.
final class TemplateMutationTests: XCTestCase {
    func testSeededMutationsOfTemplatesNeverCrash() throws {
        let names = ["index.mustache", "file.mustache", "totals.mustache", "tests.mustache"]
        let corpus = names.map { (name: $0, bytes: Array(BundledTemplates.files[$0]!.utf8)) }
        let deep = String(repeating: "{{#a}}", count: 150) + String(repeating: "{{/a}}", count: 150)
        let tokens = ["{{", "}}", "{{{", "}}}", "{{#totals}}", "{{/totals}}", "{{^x}}", "{{/x}}", "{{>totals}}", "{{>index}}",
                      "{{<layout}}", "{{$b}}", "{{/b}}", "{{=<% %>=}}", "<%#a%>", "{{! c }}", "{{%CONTENT_TYPE:TEXT}}", "{{.}}",
                      "{{name|uppercased}}", "{{#a}}{{#b}}{{#c}}", deep, "\u{0}"]
        let report = try HTMLTestSupport.report("Shapes")
        var rendered = 0, refused = 0
        let (inputs, seconds) = Mutator.run(corpus, iterations: Mutator.iterations(default: 25), tokens: tokens, slowest: 5) { name, bytes in
            // The mutated template in the place of the file it came from.
            var files = BundledTemplates.files
            files[name] = String(decoding: bytes, as: UTF8.self)
            do {
                let templates = try HTMLTemplates(files: files, overridden: [name: "mutated/\(name)"], origin: "mutated")
                _ = try HTMLReport(templates: templates, generatorVersion: "test").renderString(report)
                rendered += 1
            } catch is ReportError {
                refused += 1
            } catch {
                return false
            }
            return true
        }
        XCTAssertGreaterThan(rendered, 0)
        XCTAssertGreaterThan(refused, 0)
        XCTAssertLessThan(seconds, 60 * Double(inputs) / 100)
    }
}
