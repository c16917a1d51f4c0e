import Foundation
import XCTest
@testable import TestscopeReports

/// Templates nested deeper than `TemplateNesting.limit` are refused before swift-mustache parses them
/// (1,000 levels overflowed its stack), also through set-delimiter tags and chains of partials.
final class TemplateNestingTests: XCTestCase {
    func nested(_ levels: Int, open: String = "{{", close: String = "}}") -> String {
        (0..<levels).map { "\(open)#a\($0)\(close)" }.joined() + "x" + (0..<levels).reversed().map { "\(open)/a\($0)\(close)" }.joined()
    }

    func testDepthsOfTheBuiltInTemplatesAreSmall() throws {
        let templates = try HTMLTemplates.builtIn()
        XCTAssertEqual(templates.origin, "built-in templates")
        XCTAssertEqual(TemplateNesting("a{{#x}}b{{^y}}c{{/y}}{{/x}}{{#z}}{{/z}}").depth, 2)
        XCTAssertEqual(TemplateNesting("{{{raw}}}{{! comment }}{{>p}}").partialNames, ["p"])
        XCTAssertEqual(TemplateNesting("{{#a}}\n\n{{#b}}{{/b}}{{/a}}").line, 3)
    }

    func testSetDelimitersAreFollowed() {
        XCTAssertEqual(TemplateNesting("{{=<% %>=}}" + nested(7, open: "<%", close: "%>")).depth, 7)
        XCTAssertEqual(TemplateNesting("{{=<% %>=}}<%={{ }}=%>" + nested(3)).depth, 3)
    }

    func testDeepTemplatesAreRefusedNamingTheTemplateAndLine() throws {
        let cases: [(String, Int)] = [(nested(1_000), 1_000), ("{{=[ ]=}}\n" + nested(101, open: "[", close: "]"), 101)]
        for (text, depth) in cases {
            let folder = try HTMLTestSupport.temporaryFolder("templates")
            addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
            try text.write(to: folder.appendingPathComponent("totals.mustache"), atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try HTMLTemplates.load(directory: folder)) { error in
                guard case let ReportError.templateTooDeep(path, line, actual, limit) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(path, folder.appendingPathComponent("totals.mustache").path)
                XCTAssertNotNil(line)
                XCTAssertEqual(actual, depth)
                XCTAssertEqual(limit, TemplateNesting.limit)
            }
        }
    }

    func testChainsOfPartialsCountAndNameTheUsersTemplate() throws {
        let folder = try HTMLTestSupport.temporaryFolder("templates")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try "{{>p0}}".write(to: folder.appendingPathComponent("totals.mustache"), atomically: true, encoding: .utf8)
        for i in 0..<300 { try "{{>p\(i + 1)}}".write(to: folder.appendingPathComponent("p\(i).mustache"), atomically: true, encoding: .utf8) }
        try "end".write(to: folder.appendingPathComponent("p300.mustache"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try HTMLTemplates.load(directory: folder)) { error in
            guard case let ReportError.templateTooDeep(path, line, depth, _) = error else { return XCTFail("\(error)") }
            XCTAssertNil(line)
            XCTAssertGreaterThan(depth, 300)
            XCTAssertTrue(path.hasPrefix(folder.path), "names a built-in template instead of the user's: \(path)")
            XCTAssertFalse(error.localizedDescription.contains("\n"))
        }
        // A cycle longer than the limit (p300 → p0) is refused too, without recursing through it.
        try "{{>p0}}".write(to: folder.appendingPathComponent("p300.mustache"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try HTMLTemplates.load(directory: folder)) { error in
            guard case ReportError.templateTooDeep = error else { return XCTFail("\(error)") }
        }
    }

    func testNestingWithinTheLimitRenders() throws {
        let folder = try HTMLTestSupport.temporaryFolder("templates")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try nested(90).write(to: folder.appendingPathComponent("totals.mustache"), atomically: true, encoding: .utf8)
        let templates = try HTMLTemplates.load(directory: folder)
        let html = try HTMLReport(templates: templates, generatorVersion: "test").renderString(try HTMLTestSupport.report("Shapes"))
        XCTAssertTrue(html.contains("<html"), "no page rendered")
    }
}
