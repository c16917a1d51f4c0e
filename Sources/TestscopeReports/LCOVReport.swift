import TestscopeCoverage

/// `coverage.lcov`: the LCOV tracefile format (`SF`, `FN`/`FNDA`, `DA`, `LF`/`LH`), from the same
/// per-line view as every other format, so genhtml shows Testscope's numbers.
public struct LCOVReport: CoverageRenderer {
    public var fileName: String { "coverage.lcov" }

    public init() {}

    public func render<Output: TextOutput>(_ report: CoverageReport, to out: inout Output) throws {
        for file in report.files {
            var chunk = "TN:\nSF:\(Self.clean(file.path))\n"
            var seen = Set<String>()
            var functions: [(name: String, function: FunctionCoverage)] = []
            for function in file.functions {
                // genhtml needs unique names without commas.
                var name = Self.clean(function.name).replacingOccurrences(of: ",", with: ";")
                if seen.contains(name) { name += " [line \(function.line)]" }
                seen.insert(name)
                functions.append((name, function))
            }
            for (name, function) in functions { chunk += "FN:\(function.line),\(name)\n" }
            for (name, function) in functions { chunk += "FNDA:\(function.count),\(name)\n" }
            chunk += "FNF:\(file.summary.functions.total)\nFNH:\(file.summary.functions.covered)\n"
            try out.write(chunk)
            chunk = ""
            for line in file.lines {
                chunk += "DA:\(line.line),\(line.count)\n"
                if chunk.utf8.count > 8192 { try out.write(chunk); chunk = "" }
            }
            chunk += "LF:\(file.summary.lines.total)\nLH:\(file.summary.lines.covered)\nend_of_record\n"
            try out.write(chunk)
        }
    }

    /// LCOV is line-based: no line breaks inside a record.
    static func clean(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
