import TestscopeCoverage

/// `coverage.lcov`: the LCOV tracefile format (`SF`, `FN`/`FNDA`, `DA`, `LF`/`LH`), from the same
/// per-line view as every other format, so genhtml shows Testscope's numbers.
public struct LCOVReport: ReportRenderer {
    public var fileName: String { "coverage.lcov" }

    public init() {}

    public func render<Output: TextOutput>(_ report: CoverageReport, to out: inout Output) throws {
        try writeFiles(report.files, to: &out)
    }

    /// The files' records, each rendered on a worker (`LCOVStream` writes them a batch at a time).
    func writeFiles<Output: TextOutput>(_ files: [FileCoverage], to out: inout Output) throws {
        // Sized so a file's records do not grow: about 12 bytes a line and 250 a function.
        try PiecesInParallel.write(files, to: &out, capacity: { 1_024 + $0.lines.count * 16 + $0.functions.count * 320 }) { _, file, w in
            w.append("TN:\nSF:"); w.append(string: Self.clean(file.path)); w.append("\n")
            // genhtml needs unique names without commas.
            let functions = file.functions
            var names = functions.map { Self.functionName($0.name) }
            var seen = Set<String>(minimumCapacity: functions.count)
            for index in functions.indices where !seen.insert(names[index]).inserted {
                names[index] += " [line \(functions[index].line)]"
                seen.insert(names[index])
            }
            for index in functions.indices {
                w.append("FN:"); w.append(int: functions[index].line); w.append(","); w.append(string: names[index]); w.append("\n")
            }
            for index in functions.indices {
                w.append("FNDA:"); w.append(int: functions[index].count); w.append(","); w.append(string: names[index]); w.append("\n")
            }
            w.append("FNF:"); w.append(int: file.summary.functions.total)
            w.append("\nFNH:"); w.append(int: file.summary.functions.covered); w.append("\n")
            let lines = file.lines
            for position in lines.indices {
                // LCOV has no "unknown": a line of unknown count (a negative counter expression) is 0 here (and a warning on stderr).
                let count = lines.count(at: position)
                w.append("DA:"); w.append(int: lines.lineNumber(at: position)); w.append(",")
                w.append(int: count == LineCoverage.unreliableCount ? 0 : count); w.append("\n")
            }
            w.append("LF:"); w.append(int: file.summary.lines.total)
            w.append("\nLH:"); w.append(int: file.summary.lines.covered); w.append("\nend_of_record\n")
        }
    }

    /// A function's name as an `FN` record takes it: `clean`, and `;` for `,` (the record's separator).
    static func functionName(_ name: String) -> String {
        let result = clean(name)
        return result.utf8.contains(UInt8(ascii: ",")) ? result.replacingOccurrences(of: ",", with: ";") : result
    }

    /// LCOV is line-based: no line breaks inside a record.
    static func clean(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }
}
