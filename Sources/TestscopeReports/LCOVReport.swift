import TestscopeCoverage

/// `coverage.lcov`: the LCOV tracefile format (`SF`, `FN`/`FNDA`, `DA`, `LF`/`LH`), from the same
/// per-line view as every other format, so genhtml shows Testscope's numbers.
public struct LCOVReport: ReportRenderer {
    public var fileName: String { "coverage.lcov" }

    public init() {}

    public func render<Output: TextOutput>(_ report: CoverageReport, to out: inout Output) throws {
        try PiecesInParallel.write(report.files, to: &out) { _, file, out in
            var w = ByteWriter()
            w.append("TN:\nSF:"); w.append(string: Self.clean(file.path)); w.append("\n")
            var seen = Set<String>()
            var functions: [(name: String, function: FunctionCoverage)] = []
            for function in file.functions {
                // genhtml needs unique names without commas.
                var name = Self.clean(function.name)
                if name.utf8.contains(0x2C) { name = name.replacingOccurrences(of: ",", with: ";") }
                if seen.contains(name) { name += " [line \(function.line)]" }
                seen.insert(name)
                functions.append((name, function))
            }
            for (name, function) in functions {
                w.append("FN:"); w.append(int: function.line); w.append(","); w.append(string: name); w.append("\n")
            }
            for (name, function) in functions {
                w.append("FNDA:"); w.append(int: function.count); w.append(","); w.append(string: name); w.append("\n")
            }
            w.append("FNF:"); w.append(int: file.summary.functions.total)
            w.append("\nFNH:"); w.append(int: file.summary.functions.covered); w.append("\n")
            let lines = file.lines
            for position in lines.indices {
                // LCOV has no "unknown": a counter race's line is 0 here (and a warning on stderr).
                let count = lines.count(at: position)
                w.append("DA:"); w.append(int: lines.lineNumber(at: position)); w.append(",")
                w.append(int: count == LineCoverage.unreliableCount ? 0 : count); w.append("\n")
                try w.flush(to: &out)
            }
            w.append("LF:"); w.append(int: file.summary.lines.total)
            w.append("\nLH:"); w.append(int: file.summary.lines.covered); w.append("\nend_of_record\n")
            try w.flush(to: &out, force: true)
        }
    }

    /// LCOV is line-based: no line breaks inside a record.
    static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C || $0 >= 0xC2 }) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }
}
