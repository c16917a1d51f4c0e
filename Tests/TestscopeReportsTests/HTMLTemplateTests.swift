import Foundation
import Mustache
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports
import TestscopeTemplates

/// The templates: the compiled-in copy is the templates/ folder, a user's folder replaces single
/// templates, broken templates are errors that name the template, and the row fast path renders
/// exactly what the Mustache library renders.
final class HTMLTemplateTests: XCTestCase {
    static let templatesFolder = ReportGoldenTests.repoRoot.appendingPathComponent("templates")

    func testCompiledTemplatesAreTheTemplatesFolder() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.templatesFolder.path).filter { !$0.hasSuffix(".swift") }
        XCTAssertEqual(Set(BundledTemplates.files.keys), Set(onDisk), "every file of templates/ is embedded (Package.swift TemplateFiles.all, BundledTemplates.swift)")
        for (name, text) in BundledTemplates.files {
            XCTAssertEqual(text, try String(contentsOf: Self.templatesFolder.appendingPathComponent(name), encoding: .utf8), name)
        }
        XCTAssertEqual(Set(HTMLTemplates.templateNames.map { $0 + ".mustache" } + HTMLTemplates.assetNames), Set(onDisk))
    }

    /// The built-in templates are valid Mustache (only a user's are parsed by the library when loading).
    func testBuiltInTemplatesParse() throws {
        for (name, text) in BundledTemplates.files where name.hasSuffix(".mustache") {
            XCTAssertNoThrow(try MustacheTemplate(string: text), name)
        }
    }

    func testRowFastPathRendersWhatTheMustacheLibraryRenders() throws {
        let templates = try HTMLTemplates.builtIn()
        XCTAssertNotNil(templates.sourceLine.segments, "the built-in source-line template uses the fast path")
        XCTAssertNotNil(templates.functionRow.segments, "the built-in function-row template uses the fast path")
        let lineText = BundledTemplates.files["source-line.mustache"]!
        let functionTemplate = try MustacheTemplate(string: BundledTemplates.files["function-row.mustache"]!)
        // The same template inside a section: not a plain row, so it renders through `CompiledTemplates`
        // (which `CompiledTemplateTests` compares with the library).
        let sectioned = "{{#.}}" + lineText + "{{/.}}"
        let sectionedRow = HTMLRowTemplate(name: "source-line", text: sectioned,
                                         templates: CompiledTemplates(templates: ["source-line": try XCTUnwrap(CompiledTemplate(sectioned))]))
        XCTAssertNil(sectionedRow.segments)
        for sample in HTMLTestSupport.samples {
            let report = try HTMLTestSupport.report(sample)
            for file in report.files {
                let source = SourceText.read(URL(fileURLWithPath: file.path))
                let fast = HTMLSourceView.render(file: file, source: source, anchorPrefix: "", template: templates.sourceLine)
                let slow = HTMLSourceView.render(file: file, source: source, anchorPrefix: "",
                                                 template: sectionedRow)
                XCTAssertEqual(String(decoding: fast.rows.array, as: UTF8.self), String(decoding: slow.rows.array, as: UTF8.self), file.relativePath)
                for function in file.functions + file.functions.flatMap(\.closures) {
                    let row = HTMLModels.FunctionRow(function: function, isClosure: false, anchorPrefix: "p&1-", watermarks: Watermarks())
                    var out = ByteWriter()
                    templates.functionRow.render(row, to: &out)
                    XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), functionTemplate.render(row), function.name)
                }
            }
        }
    }

    func testFastPathOnlyForPlainVariableTags() {
        XCTAssertEqual(HTMLRowTemplate.compile("<a>{{x}}</a>{{{y}}}{{& z}}"),
                       [.text(Array("<a>".utf8)), .variable("x", escaped: true), .text(Array("</a>".utf8)),
                        .variable("y", escaped: false), .variable("z", escaped: false)])
        for text in ["{{#a}}x{{/a}}", "{{^a}}x{{/a}}", "{{>p}}", "{{=<% %>=}}", "{{a.b}}", "{{.}}", "{{.x}}", "{{}}", "{{x", "{{(t) x}}"] {
            XCTAssertNil(HTMLRowTemplate.compile(text), text)
        }
        XCTAssertEqual(HTMLRowTemplate.compile("a{{! c }}b"), [.text(Array("a".utf8)), .text(Array("b".utf8))], "comments render nothing")
    }

    func testAUsersTemplateReplacesTheBuiltInOneAndTheRestStay() throws {
        let folder = try templatesFolder(["file.mustache": "<p class=\"mine\">{{path}} {{uncoveredLines}}</p><table>{{{sourceLines}}}</table>",
                                          "source-line.mustache": "{{#state}}<tr class=\"{{state}}\">{{number}}:{{count}}</tr>{{/state}}"])
        let templates = try HTMLTemplates.load(directory: folder)
        XCTAssertEqual(templates.origin, folder.path)
        XCTAssertNil(templates.sourceLine.segments, "a section in a row template renders through CompiledTemplates")
        let report = try HTMLTestSupport.report("Shapes")
        let html = try HTMLReport(templates: templates, generatorVersion: "test").renderString(report)
        XCTAssertTrue(html.contains("<p class=\"mine\">Sources/Shapes/Shape.swift 4</p>"))
        XCTAssertTrue(html.contains("<tr class=\"par\">38:1</tr>"), "the user's row template with a section")
        XCTAssertTrue(html.contains("<div class=\"cards\">"), "templates the user did not copy are the built-in ones")
    }

    /// A user's row template with a section renders through Testscope's renderer, not the library: a
    /// function name with `<` joined to a combining mark (one `Character`, which the library does not
    /// escape) comes out escaped, as on the fast path.
    func testAUsersRowTemplateWithASectionEscapesEveryMarkupByte() throws {
        let folder = try templatesFolder(["function-row.mustache": "{{#name}}<i>{{name}}</i>{{/name}}"])
        let templates = try HTMLTemplates.load(directory: folder)
        XCTAssertNil(templates.functionRow.segments)
        var function = try XCTUnwrap(try HTMLTestSupport.report("Shapes").files.first?.functions.first)
        function.name = "<\u{301}script>alert(1)</script>"
        var out = ByteWriter()
        templates.functionRow.render(HTMLModels.FunctionRow(function: function, isClosure: false, anchorPrefix: "", watermarks: Watermarks()), to: &out)
        XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), "<i>&lt;\u{301}script&gt;alert(1)&lt;/script&gt;</i>")
    }

    func testBrokenTemplatesAreErrorsNamingTheTemplate() throws {
        let cases: [(files: [String: String], expected: (String) -> ReportError)] = [
            (["file.mustache": "<p>\n{{#functions}}oops\n"], { .templateSyntax(path: $0 + "/file.mustache", line: 3, column: 0,
                                                                                  problem: "a section is never closed ({{#name}} or {{^name}} without {{/name}})") }),
            (["index.mustache": "{{#a}}x{{/b}}"], { .templateSyntax(path: $0 + "/index.mustache", line: 1, column: 12,
                                                                    problem: "a closing {{/…}} tag does not match the section it closes") }),
            (["index.mustache": "{{>sidebar}}"], { .missingPartial(template: $0 + "/index.mustache", partial: "sidebar") }),
            (["totals.mustache": "{{>totals}}"], { .recursivePartial(template: $0 + "/totals.mustache", chain: ["totals", "totals"]) }),
            (["notes.txt": "not a template"], { .noTemplatesInFolder(path: $0, expected: HTMLTemplates.templateNames.map { $0 + ".mustache" } + HTMLTemplates.assetNames) }),
        ]
        for (files, expected) in cases {
            let folder = try templatesFolder(files)
            XCTAssertThrowsError(try HTMLTemplates.load(directory: folder)) { error in
                guard let error = error as? ReportError else { return XCTFail("\(error)") }
                let want = expected(folder.path)
                if case .templateSyntax(let path, _, _, let problem) = want, case .templateSyntax(let gotPath, _, _, let gotProblem) = error {
                    XCTAssertEqual(gotPath, path)
                    XCTAssertEqual(gotProblem, problem)
                } else {
                    XCTAssertEqual(error, want)
                }
                XCTAssertFalse(error.localizedDescription.isEmpty)
            }
        }
    }

    func testTemplatesFolderThatIsMissingOrNotAFolder() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString)")
        XCTAssertThrowsError(try HTMLTemplates.load(directory: missing)) {
            XCTAssertEqual($0 as? ReportError, .templatesFolderNotFound(path: missing.path))
        }
        let file = try templatesFolder(["x.txt": ""]).appendingPathComponent("x.txt")
        XCTAssertThrowsError(try HTMLTemplates.load(directory: file)) {
            XCTAssertEqual($0 as? ReportError, .templatesFolderUnreadable(path: file.path, reason: "not a folder"))
        }
        let folder = try templatesFolder([:])
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("file.mustache"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try HTMLTemplates.load(directory: folder)) {
            XCTAssertEqual($0 as? ReportError, .templateUnreadable(path: folder.appendingPathComponent("file.mustache").path, reason: "not a regular file"))
        }
    }

    func templatesFolder(_ files: [String: String]) throws -> URL {
        let folder = try HTMLTestSupport.temporaryFolder("templates")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder
    }
}
