import Foundation
import Mustache
@testable import TestscopeReports
import TestscopeExecution
import TestscopeTemplates
import TestscopeTestSupport
import XCTest

/// The compiled page templates render what the Mustache library renders: on the real templates and
/// reports, on templates written to hit the parser's whitespace rules, and on seeded mutations of the
/// real templates.
final class CompiledTemplateTests: XCTestCase {
    /// Renders `name` from `texts` both ways; nil for the compiled side when it does not compile.
    func both(_ texts: [String: String], _ name: String, _ context: Any) throws -> (compiled: String?, library: String) {
        var library = MustacheLibrary()
        for (key, text) in texts { library.register(try MustacheTemplate(string: text), named: key) }
        return (CompiledTemplates(texts).render(name, context), library.render(context, withTemplate: name) ?? "")
    }

    func testEveryBuiltInTemplateCompiles() throws {
        let compiled = try HTMLTemplates.builtIn().compiled.templates
        for name in HTMLTemplates.templateNames { XCTAssertNotNil(compiled[name], name) }
    }

    func testWhitespaceSectionsPartialsAndLookupsAsTheLibrary() throws {
        let context: [String: Any] = [
            "name": "a <b> & \"c\" 'd'", "count": 3, "flag": true, "off": false, "none": NSNull(),
            "items": [["x": "1", "y": ["z": "deep"]], ["x": "2"]], "empty": [String](), "words": ["p", "q"],
            "nested": ["name": "inner", "more": ["leaf": "L"]], "opt": Optional<String>.none as Any,
        ]
        let texts: [String: String] = [
            "main": """
              {{#items}}
                <li>{{x}} {{y.z}} {{name}}</li>
              {{/items}}
            {{^empty}}none here{{/empty}}
             {{! a standalone comment }}
            text {{! inline comment }} after
              {{>part}}
            {{#nested}}{{name}} {{more.leaf}} {{.name}} {{count}}{{/nested}}
            {{#words}}[{{.}}]{{/words}} {{#flag}}yes{{/flag}}{{^off}}no{{/off}} {{#none}}N{{/none}}{{^none}}not{{/none}}
            {{{name}}} {{&name}} {{missing}} {{opt}} {{#count}}{{.}}{{/count}}
            \t{{#flag}}\r\n  crlf\r\n{{/flag}}
            {{#items}}{{#y}}{{z}}{{/y}}{{/items}} end
            """,
            "part": "line one\n{{#words}}\n  w {{.}}\n{{/words}}\n{{>leaf}}\nlast",
            "leaf": "\tleaf {{name}}\n\tsecond\n  {{>crlf}}\n",
            "crlf": "a\r\n{{name}}\r\nb\n{{name}}",
        ]
        let (compiled, library) = try both(texts, "main", context)
        XCTAssertEqual(compiled, library)
        XCTAssertTrue(library.contains("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;"), library)
    }

    /// A long list (rendered a chunk per core) renders as the library renders it, in order: elements of
    /// varied lengths, each in an indented partial with nested sections, CRLF and lines that end or
    /// begin a piece, and lookups that reach below the element on the stack.
    func testLongListsRenderOnEveryCoreAsTheLibrary() throws {
        let count = CompiledTemplates.parallelSection * 3 + 7
        let items: [[String: Any]] = (0..<count).map { i in
            ["n": String(i), "text": String(repeating: "<x>", count: i % 5), "flag": i % 3 == 0,
             "subs": (0..<(i % 4)).map { ["s": "\(i).\($0)"] }]
        }
        let context: [String: Any] = ["items": items, "title": "T & t", "short": [["n": "only"]]]
        let texts: [String: String] = [
            "main": "head {{title}}\n  {{>rows}}\n{{#short}}{{n}}{{/short}}\nend\n",
            "rows": "<ul>\n{{#items}}\n  <li>{{n}} {{text}} {{title}}{{#flag}}\r\n    flagged\r\n{{/flag}}\n{{#subs}}  - {{s}}\n{{/subs}}</li>\n{{/items}}\n</ul>",
        ]
        let (compiled, library) = try both(texts, "main", context)
        XCTAssertEqual(compiled, library)
        XCTAssertTrue(library.contains("<li>\(count - 1) "), "every element is rendered")
    }

    /// A name is read as the library reads it, with `Character` equality: U+212A KELVIN SIGN is `K`
    /// (canonically equivalent), so `{{\u{212A}}}` names the same value as `{{K}}`.
    func testNamesWithACanonicallyEquivalentCharacterAsTheLibrary() throws {
        let texts = ["main": "{{\u{212A}}} {{#K}}[{{.}}]{{/\u{212A}}} {{> \u{212A}p}}", "Kp": "part {{K}}"]
        XCTAssertNotNil(CompiledTemplate(texts["main"]!))
        let (compiled, library) = try both(texts, "main", ["K": "k"])
        XCTAssertEqual(compiled, library)
        XCTAssertEqual(library, "k [k] part k")
    }

    func testTemplatesOutsideTheSubsetAreLeftToTheLibrary() throws {
        for text in ["{{uppercased(name)}}", "{{=<% %>=}}<%name%>", "{{<parent}}{{$b}}x{{/b}}{{/parent}}", "{{>*dynamic}}",
                     "{{%CONTENT_TYPE:TEXT}}", "{{#a}}unclosed"] {
            XCTAssertNil(CompiledTemplate(text), text)
        }
        // A template is not compiled when a partial it names is not.
        let compiled = CompiledTemplates(["outer": "{{>inner}}", "inner": "{{lowercased(name)}}", "plain": "{{name}}"])
        XCTAssertNil(compiled.templates["outer"])
        XCTAssertNotNil(compiled.templates["plain"])
    }

    /// Every page of the recorded samples' reports, single-file and multi-page, byte for byte.
    func testReportsRenderAsWithTheLibrary() throws {
        let templates = try HTMLTemplates.builtIn()
        for sample in HTMLTestSupport.samples {
            let report = try HTMLTestSupport.report(sample)
            for singleFile in [true, false] {
                let fast = HTMLReport(templates: templates, singleFile: singleFile, generatorVersion: "test")
                let slow = HTMLReport(templates: templates.libraryOnly(), singleFile: singleFile, generatorVersion: "test")
                XCTAssertEqual(try fast.renderString(report), try slow.renderString(report), "\(sample) single: \(singleFile)")
            }
            let a = try HTMLTestSupport.temporaryFolder("compiled"), b = try HTMLTestSupport.temporaryFolder("library")
            defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
            let pages = try HTMLReport(templates: templates, generatorVersion: "test").writePages(report, into: OutputFolder(a))
            _ = try HTMLReport(templates: templates.libraryOnly(), generatorVersion: "test").writePages(report, into: OutputFolder(b))
            XCTAssertGreaterThan(pages.count, 1, sample)
            for page in pages {
                let relative = String(page.dropFirst(a.path.count))
                XCTAssertEqual(try HTMLTestSupport.read(URL(fileURLWithPath: page)), try HTMLTestSupport.read(URL(fileURLWithPath: b.path + relative)),
                               "\(sample) \(relative)")
            }
        }
    }

    /// Seeded mutations of the real templates that still load render the same both ways.
    func testSeededMutationsRenderAsWithTheLibrary() throws {
        let names = ["index.mustache", "file.mustache", "totals.mustache", "functions.mustache", "layout.mustache"]
        let corpus = names.map { (name: $0, bytes: Array(BundledTemplates.files[$0]!.utf8)) }
        let tokens = ["{{", "}}", "{{{", "}}}", "{{#totals}}", "{{/totals}}", "{{^x}}", "{{/x}}", "{{>totals}}", "  {{>ratio-cell}}\n",
                      "{{! c }}", "\n", "\r\n", " \t", "{{.}}", "{{#files}}", "{{/files}}", "{{a.b}}", "{{&name}}", "{{{title}}}",
                      // Characters the parser compares by code: a mark joined to `{`, `}` or a space, other newlines and spaces.
                      "\u{301}", "{\u{301}{", "}\u{301}}", " \u{301}\n", "\u{2028}", "\u{85}", "\u{0B}", "\u{0C}", "\r", "\u{A0}", "é"]
        let report = try HTMLTestSupport.report("Shapes")
        var compared = 0, compiledMutations = 0
        _ = Mutator.run(corpus, iterations: Mutator.iterations(default: 40), tokens: tokens, slowest: 5) { name, bytes in
            var files = BundledTemplates.files
            files[name] = String(decoding: bytes, as: UTF8.self)
            guard let templates = try? HTMLTemplates(files: files, overridden: [name: "mutated/\(name)"], origin: "mutated") else { return true }
            if templates.compiled.templates[String(name.dropLast(".mustache".count))] != nil { compiledMutations += 1 }
            let fast = try? HTMLReport(templates: templates, singleFile: true, generatorVersion: "test").renderString(report)
            let slow = try? HTMLReport(templates: templates.libraryOnly(), singleFile: true, generatorVersion: "test").renderString(report)
            XCTAssertEqual(fast, slow, "\(name): \(files[name]!.prefix(300))")
            compared += 1
            return true
        }
        XCTAssertGreaterThan(compared, 20)
        XCTAssertGreaterThan(compiledMutations, 10)
    }
}
