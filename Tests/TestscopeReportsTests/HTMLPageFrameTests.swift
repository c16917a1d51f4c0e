import Foundation
@testable import TestscopeReports
import TestscopeExecution
import TestscopeTemplates
import TestscopeTestSupport
import XCTest

/// The file pages' layout rendered once (`HTMLPageFrame`) gives the bytes a render per page gives,
/// and is refused for a layout whose title or body is not one plain value.
final class HTMLPageFrameTests: XCTestCase {
    let titles = ["Sources/A&B/<x>.swift · Pkg \"q\" 'a'", "", "é ✓ · 1"]
    let bodies = ["<div class=\"x\">body &amp; more</div>\n", "", "\u{1}testscope-source-rows\u{1}"]

    /// The frame of `html`'s file pages against `page(…)` for every title and body; nil when refused.
    func framed(_ html: HTMLReport, file: StaticString = #filePath, line: UInt = #line) throws -> HTMLPageFrame? {
        let metadata = try HTMLTestSupport.report("Shapes").metadata
        guard let frame = try html.filePageFrame(metadata) else { return nil }
        for title in titles {
            for body in bodies {
                var out: [UInt8] = []
                frame.write(title: title, body: Array(body.utf8)[...]) { out.append(contentsOf: $0) }
                let rendered = try html.page(metadata, title: title, kind: "file", root: "../", body: body, inline: false)
                XCTAssertEqual(String(decoding: out, as: UTF8.self), rendered, file: file, line: line)
            }
        }
        return frame
    }

    func html(layout: String) throws -> HTMLReport {
        var files = BundledTemplates.files
        files["layout.mustache"] = layout
        let templates = try HTMLTemplates(files: files, overridden: ["layout.mustache": "custom/layout.mustache"], origin: "custom")
        return HTMLReport(templates: templates, generatorVersion: "test")
    }

    func testTheBuiltInLayoutIsFramedWithTheBytesOfARender() throws {
        let frame = try XCTUnwrap(try framed(try HTMLTestSupport.htmlReport()))
        XCTAssertEqual(frame.holes.count, 2)
    }

    func testALayoutThatUsesTheTitleOtherwiseRendersPerPage() throws {
        let base = BundledTemplates.files["layout.mustache"]!
        // The title not escaped, or the body escaped: the frame would differ, so there is none.
        XCTAssertNil(try framed(try html(layout: base.replacingOccurrences(of: "<title>{{title}}</title>", with: "<title>{{{title}}}</title>"))))
        // In a section (an empty title is still a value to the library): framed or not, never other bytes.
        _ = try framed(try html(layout: base.replacingOccurrences(of: "<title>{{title}}</title>",
                                                                  with: "{{#title}}<title>{{title}}</title>{{/title}}")))
        XCTAssertNil(try framed(try html(layout: base.replacingOccurrences(of: "{{{body}}}", with: "{{body}}"))))
        // Used twice, plainly: framed, with a hole each time.
        let twice = try XCTUnwrap(try framed(try html(layout: base.replacingOccurrences(
            of: "<title>{{title}}</title>", with: "<title>{{title}}</title><meta name=\"t\" content=\"{{title}}\">"))))
        XCTAssertEqual(twice.holes.count, 3)
    }

    /// Seeded mutations of the layout: wherever a frame is made, it gives a render's bytes (`framed`).
    func testSeededMutationsOfTheLayoutFrameOnlyWhereTheBytesAgree() throws {
        let corpus = [(name: "layout.mustache", bytes: Array(BundledTemplates.files["layout.mustache"]!.utf8))]
        let tokens = ["{{title}}", "{{{title}}}", "{{#title}}", "{{/title}}", "{{^title}}", "{{body}}", "{{{body}}}", "{{&body}}",
                      "{{#body}}", "{{/body}}", "{{.}}", "\n", "{{root}}", "{{pageKind}}"]
        var framed = 0, refused = 0
        _ = Mutator.run(corpus, iterations: Mutator.iterations(default: 60), tokens: tokens, slowest: 5) { _, bytes in
            guard let html = try? self.html(layout: String(decoding: bytes, as: UTF8.self)) else { return true }
            if (try? self.framed(html)) != nil { framed += 1 } else { refused += 1 }
            return true
        }
        XCTAssertGreaterThan(framed, 5)
        XCTAssertGreaterThan(refused, 0)
    }
}
