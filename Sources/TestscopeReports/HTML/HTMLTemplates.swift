import Foundation
import Mustache
import TestscopeExecution
import TestscopeTemplates

/// The HTML report's templates and assets: the ones compiled into the binary (templates/), or a
/// user's copies from `--templates DIR` (files there replace the built-in ones of the same name).
/// Every template is checked when loading (nesting, partials; a user's syntax by the Mustache library's
/// parser, for the line and column of an error) and compiled (`CompiledTemplate`, the one renderer of
/// every page and row), so a broken template is a `ReportError` naming it before anything is written,
/// never a crash or a half-written report.
package struct HTMLTemplates: Sendable {
    /// The templates the renderer uses (without `.mustache`).
    package static let templateNames = [
        "layout", "nav", "index", "directory", "file", "single", "totals", "file-table", "functions",
        "function-row", "source-line", "ratio-cell", "flaky", "tests", "tests-index", "tests-counts", "tests-name",
        "tests-snippet", "tests-failure", "file-failures", "history",
    ]
    /// The assets (copied to `assets/` or inlined).
    package static let assetNames = ["report.css", "report.js", "head.js", "per-test.js"]

    /// Every template compiled (`CompiledTemplate`): they render every page, and the rows that the
    /// rows' fast path does not.
    let compiled: CompiledTemplates
    let assets: [String: String]
    /// `head.js` escaped for a `<script>` element once, not once a page.
    let headScript: String
    /// The row templates applied per source line / function row, with a fast path (see `HTMLRowTemplate`).
    let sourceLine: HTMLRowTemplate
    let functionRow: HTMLRowTemplate
    /// Where the templates came from, for messages: "built-in templates" or a folder.
    package let origin: String

    /// The templates compiled into the binary.
    package static func builtIn() throws -> HTMLTemplates {
        try HTMLTemplates(files: BundledTemplates.files, overridden: [:], origin: "built-in templates")
    }

    /// A user's templates folder; files missing there fall back to the built-in ones.
    package static func load(directory: URL) throws -> HTMLTemplates {
        let path = directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ReportError.templatesFolderNotFound(path: path)
        }
        guard isDirectory.boolValue else {
            throw ReportError.templatesFolderUnreadable(path: path, reason: "not a folder")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw ReportError.templatesFolderUnreadable(path: path, reason: Self.reason(error))
        }
        var files = BundledTemplates.files
        var overridden: [String: String] = [:]
        for name in names.sorted() where name.hasSuffix(".mustache") || assetNames.contains(name) {
            let file = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw ReportError.templateUnreadable(path: file.path, reason: access(file.path, R_OK) == 0 ? "not a regular file" : "permission denied")
            }
            files[name] = String(decoding: data, as: UTF8.self)
            overridden[name] = file.path
        }
        let known = templateNames.map { $0 + ".mustache" } + assetNames
        guard overridden.keys.contains(where: known.contains) else {
            throw ReportError.noTemplatesInFolder(path: path, expected: known)
        }
        return try HTMLTemplates(files: files, overridden: overridden, origin: path)
    }

    /// Parses every template (`overridden` maps a file name to the user's path, for messages).
    init(files: [String: String], overridden: [String: String], origin: String) throws {
        self.origin = origin
        func label(_ file: String) -> String { overridden[file] ?? "\(file) (built-in)" }
        var compiled: [String: CompiledTemplate] = [:]
        var partials: [String: [String]] = [:]
        var nesting: [String: TemplateNesting] = [:]
        for (file, text) in files.sorted(by: { $0.key < $1.key }) where file.hasSuffix(".mustache") {
            let name = String(file.dropLast(".mustache".count))
            // Before parsing: swift-mustache's parser recurses once per level.
            let scan = TemplateNesting(text)
            if scan.depth > TemplateNesting.limit {
                throw ReportError.templateTooDeep(path: label(file), line: scan.line, depth: scan.depth, limit: TemplateNesting.limit)
            }
            nesting[name] = scan
            // A user's templates are parsed by the library now, for the line and column of a syntax
            // error (the built-in ones are checked by the tests); then each must compile.
            if overridden[file] != nil {
                do {
                    _ = try MustacheTemplate(string: text)
                } catch let error as MustacheTemplate.ParserError {
                    throw ReportError.templateSyntax(path: label(file), line: error.context.lineNumber,
                                                     column: error.context.columnNumber, problem: Self.describe(error.error))
                }
            }
            guard let template = CompiledTemplate(text) else { throw ReportError.templateUnsupported(path: label(file)) }
            compiled[name] = template
            partials[name] = scan.partialNames
        }
        for name in Self.templateNames where partials[name] == nil {
            throw ReportError.missingTemplate(name: name + ".mustache", origin: origin)
        }
        for (name, references) in partials.sorted(by: { $0.key < $1.key }) {
            for partial in references where partials[partial] == nil {
                throw ReportError.missingPartial(template: label(name + ".mustache"), partial: partial)
            }
        }
        for name in partials.keys.sorted() {
            if let cycle = Self.cycle(from: name, partials: partials, path: []) {
                throw ReportError.recursivePartial(template: label(cycle[0] + ".mustache"), chain: cycle)
            }
        }
        let depths = TemplateNesting.effectiveDepths(nesting)
        for (name, depth) in depths.sorted(by: { $0.key < $1.key }) where depth > TemplateNesting.limit {
            // Name the user's template on the deepest chain (a built-in one only includes it).
            let chain = TemplateNesting.deepestChain(from: name, nesting, depths: depths)
            let culprit = chain.first { overridden[$0 + ".mustache"] != nil } ?? name
            throw ReportError.templateTooDeep(path: label(culprit + ".mustache"), line: nil, depth: depth, limit: TemplateNesting.limit)
        }
        self.compiled = CompiledTemplates(templates: compiled)
        var assets: [String: String] = [:]
        for name in Self.assetNames { assets[name] = files[name] ?? "" }
        self.assets = assets
        headScript = HTMLEscaping.inlineElementText(assets["head.js"] ?? "")
        sourceLine = HTMLRowTemplate(name: "source-line", text: files["source-line.mustache"] ?? "", templates: self.compiled)
        functionRow = HTMLRowTemplate(name: "function-row", text: files["function-row.mustache"] ?? "", templates: self.compiled)
    }

    /// Renders a template with its typed view model.
    func render(_ name: String, _ context: some HTMLViewModel) throws -> String {
        guard let text = compiled.render(name, context) else {
            throw ReportError.missingTemplate(name: name + ".mustache", origin: origin)
        }
        return text
    }

    static func cycle(from name: String, partials: [String: [String]], path: [String]) -> [String]? {
        if let start = path.firstIndex(of: name) { return Array(path[start...]) + [name] }
        // Deeper chains are refused as too deep (`TemplateNesting.effectiveDepths`); the recursion stops here.
        guard path.count <= TemplateNesting.limit else { return nil }
        for next in partials[name] ?? [] {
            if let found = cycle(from: next, partials: partials, path: path + [name]) { return found }
        }
        return nil
    }

    static func describe(_ error: Error) -> String {
        switch error as? MustacheTemplate.Error {
        case .sectionCloseNameIncorrect: return "a closing {{/…}} tag does not match the section it closes"
        case .unfinishedName: return "a tag is not finished (a {{ without its }})"
        case .expectedSectionEnd: return "a section is never closed ({{#name}} or {{^name}} without {{/name}})"
        case .invalidSetDelimiter: return "a set-delimiter tag {{=… …=}} is malformed"
        case .transformAppliedToInheritanceSection: return "a transform is applied to an inheritance section"
        case .illegalTokenInsideInheritSection, .textInsideInheritSection: return "a {{<parent}} block holds something other than {{$block}} overrides"
        case .invalidConfigVariableSyntax, .unrecognisedConfigVariable: return "a {{% pragma}} tag is not understood"
        case nil: return String(describing: error)
        }
    }

    static func reason(_ error: Error) -> String { SystemErrorText.reason(error) }
}
