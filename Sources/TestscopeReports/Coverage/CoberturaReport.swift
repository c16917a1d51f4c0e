import Foundation
import TestscopeCoverage
import TestscopeExecution

/// `cobertura.xml`: Cobertura's coverage-04 DTD as GitLab, Azure DevOps, Jenkins, pycobertura and
/// diff-cover read it — one `package` per target, one `class` per file (`filename` relative to the
/// repository root, the `<source>`), a `method` per function with its declaration line, real hit counts.
/// Swift has no branch regions, so every branch attribute is 0 (coverage.py's convention).
package struct CoberturaReport: ReportRenderer {
    package var fileName: String
    /// The absolute folder `filename`s are relative to (`RepositoryRoot.find`).
    package var sourceRoot: String
    package var generatorVersion: String

    package init(sourceRoot: String, generatorVersion: String, fileName: String = "cobertura.xml") {
        self.sourceRoot = sourceRoot.count > 1 && sourceRoot.hasSuffix("/") ? String(sourceRoot.dropLast()) : sourceRoot
        self.generatorVersion = generatorVersion
        self.fileName = fileName
    }

    package func render<Output: TextOutput>(_ report: CoverageModel, to out: inout Output) throws {
        // Epoch seconds (gcovr's choice) of when the report was made, so the file is reproducible.
        let timestamp = UTCTimestamp.parse(report.metadata.createdAt).map { Int64($0.timeIntervalSince1970) } ?? 0
        let lines = report.totals.lines
        var w = ByteWriter()
        w.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        w.append("<coverage line-rate=\""); w.append(string: Self.rate(lines))
        w.append("\" branch-rate=\"0\" lines-covered=\""); w.append(int: lines.covered)
        w.append("\" lines-valid=\""); w.append(int: lines.total)
        w.append("\" branches-covered=\"0\" branches-valid=\"0\" complexity=\"0\" version=\"")
        w.append(string: XMLText.attribute("testscope \(generatorVersion)"))
        w.append("\" timestamp=\""); w.append(int: timestamp); w.append("\">\n")
        w.append("  <sources>\n    <source>"); w.append(string: XMLText.content(sourceRoot)); w.append("</source>\n  </sources>\n")
        w.append("  <packages>\n")
        for (name, files) in Self.packages(report) {
            let summary = files.reduce(CoverageRatio()) { $0 + $1.summary.lines }
            w.append("    <package name=\""); w.append(string: XMLText.attribute(name))
            w.append("\" line-rate=\""); w.append(string: Self.rate(summary)); w.append("\" branch-rate=\"0\" complexity=\"0\">\n")
            w.append("      <classes>\n")
            for file in files {
                writeClass(file, to: &w)
                try w.flush(to: &out)
            }
            w.append("      </classes>\n    </package>\n")
        }
        w.append("  </packages>\n</coverage>\n")
        try w.flush(to: &out, force: true)
    }

    private func writeClass(_ file: FileCoverage, to w: inout ByteWriter) {
        let filename = RepositoryRoot.relative(file.path, to: sourceRoot)
        let base = (filename as NSString).lastPathComponent
        w.append("        <class name=\""); w.append(string: XMLText.attribute(base.hasSuffix(".swift") ? String(base.dropLast(6)) : base))
        w.append("\" filename=\""); w.append(string: XMLText.attribute(filename))
        w.append("\" line-rate=\""); w.append(string: Self.rate(file.summary.lines)); w.append("\" branch-rate=\"0\" complexity=\"0\">\n")
        w.append("          <methods>\n")
        for function in file.functions {
            w.append("            <method name=\""); w.append(string: XMLText.attribute(function.name))
            w.append("\" signature=\""); w.append(string: XMLText.attribute(function.mangledName))
            w.append("\" line-rate=\""); w.append(string: Self.rate(function.lines)); w.append("\" branch-rate=\"0\" complexity=\"0\">\n")
            // One line, the declaration with the entry count (gcovr's convention): the executable lines
            // are the class's, and repeating them per method doubled the file (38.2 MB on the 400-file
            // synthetic package, 3.6× GitLab's limit; consumers read the class's lines).
            w.append("              <lines>\n                <line number=\""); w.append(int: function.line)
            w.append("\" hits=\""); w.append(int: function.count == LineCoverage.unreliableCount ? 0 : function.count)
            w.append("\"/>\n")
            w.append("              </lines>\n            </method>\n")
        }
        w.append("          </methods>\n          <lines>\n")
        for line in file.lines {
            w.append("            "); Self.writeLine(line, to: &w)
        }
        w.append("          </lines>\n        </class>\n")
    }

    /// A line with its real count; an unknown count (a negative counter expression) is 0 here (and a warning on stderr).
    static func writeLine(_ line: LineCoverage, to w: inout ByteWriter) {
        w.append("<line number=\""); w.append(int: line.line)
        // `branch` is left to the DTD's default ("false"): 17 bytes a line, 4.6 MB on the 400-file package.
        w.append("\" hits=\""); w.append(int: line.isUnreliable ? 0 : line.count); w.append("\"/>\n")
    }

    /// Files grouped by target (module), in the report's file order; files without a known target
    /// under their first path component.
    static func packages(_ report: CoverageModel) -> [(name: String, files: [FileCoverage])] {
        var groups: [(name: String, files: [FileCoverage])] = []
        var index: [String: Int] = [:]
        for file in report.files {
            let name = file.target ?? String(file.relativePath.split(separator: "/").first ?? "")
            if let i = index[name] { groups[i].files.append(file) } else {
                index[name] = groups.count
                groups.append((name, [file]))
            }
        }
        return groups
    }

    /// covered ÷ total with 4 decimals, `1` for nothing to measure (coverage.py); never `1.0000`
    /// while a line is missed.
    static func rate(_ ratio: CoverageRatio) -> String {
        guard ratio.total > 0 else { return "1" }
        var text = Format.fixed(Double(ratio.covered) / Double(ratio.total), decimals: 4)
        if ratio.covered < ratio.total && text == "1.0000" { text = "0.9999" }
        return text
    }
}
