import TestscopeCoverage

/// `coverage.lcov`: the LCOV tracefile format (`SF`, `FN`/`FNDA`, `DA`, `LF`/`LH`), from the same
/// per-line view as every other format, so genhtml shows Testscope's numbers.
package struct LCOVReport: ReportRenderer {
    package var fileName: String { "coverage.lcov" }

    package init() {}

    package func render<Output: TextOutput>(_ report: CoverageModel, to out: inout Output) throws {
        try writeFiles(report.files, to: &out)
    }

    /// The files' records, each rendered on a worker (`LCOVStream` writes them a batch at a time).
    func writeFiles<Output: TextOutput>(_ files: [FileCoverage], to out: inout Output) throws {
        // Sized so a file's records do not grow: about 12 bytes a line and 250 a function.
        try PiecesInParallel.write(files, to: &out, capacity: { 1_024 + $0.lines.count * 16 + $0.functions.count * 320 }) { _, file, w in
            w.append("TN:\nSF:"); w.append(string: Self.clean(file.path)); w.append("\n")
            // genhtml needs unique names without commas. One hash a name (`insert` says whether it
            // was there), names by index (no copy of each function): the names were half of this
            // format's own instructions at 400 files.
            let functions = file.functions
            var names = functions.indices.map { Self.functionName(functions[$0].name) }
            // A set of the names only when two may be equal (a hash of each ASCII name, sorted: the
            // set's hashing and copies were 1 % of this format's instructions at 400 files).
            if ByteString.mayRepeat(names.count, { names[$0] }) {
                var seen = Set<String>(minimumCapacity: functions.count)
                for index in functions.indices where !seen.insert(names[index]).inserted {
                    names[index] += " [line \(functions[index].line)]"
                    seen.insert(names[index])
                }
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

    /// A function's name as an `FN` record takes it: `clean`, and `;` for `,` (the record's separator),
    /// found in one pass over the bytes.
    static func functionName(_ name: String) -> String {
        var needsCleaning = false, hasComma = false
        ByteString.withBytes(name) { utf8 in
            for byte in utf8 {
                if byte == 0x2C { hasComma = true } else if mayStartLineBreak(byte) { needsCleaning = true }
            }
        }
        var result = needsCleaning ? clean(name) : name
        // Cleaning turns line breaks into spaces: it never adds or removes a comma.
        if hasComma { result = result.replacingOccurrences(of: ",", with: ";") }
        return result
    }

    /// LCOV is line-based: no line breaks inside a record.
    static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: mayStartLineBreak) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }

    /// A byte that is, or starts, a character `clean` replaces: the ASCII line breaks, or a lead byte
    /// of a non-ASCII character (U+0085, U+2028, U+2029 among them; checked as characters then).
    @inline(__always)
    static func mayStartLineBreak(_ byte: UInt8) -> Bool {
        byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C || byte >= 0xC2
    }
}
