import TestscopeCoverage

/// `coverage.json`: Testscope's documented JSON schema (docs/coverage-json.md), streamed out.
package struct JSONReport: ReportRenderer {
    package static let schema = "https://testscope.dev/schemas/coverage/1"
    package var fileName: String { "coverage.json" }
    package var generatorVersion: String

    package init(generatorVersion: String) { self.generatorVersion = generatorVersion }

    package func render<Output: TextOutput>(_ report: CoverageModel, to out: inout Output) throws {
        try writeHead(report.metadata, to: &out)
        try writeFiles(report.files, startIndex: 0, to: &out)
        try writeTail(report.report, to: &out)
    }

    /// Everything before the files: what is known before the first file (`JSONStream` writes it
    /// first and the files after it, straight into `coverage.json`).
    func writeHead<Output: TextOutput>(_ meta: ReportMetadata, to out: inout Output) throws {
        try out.write("{\n  \"schema\": \(Self.string(Self.schema)),\n")
        try out.write("  \"generator\": {\"name\": \"testscope\", \"version\": \(Self.string(generatorVersion))},\n")
        try out.write("  \"createdAt\": \(Self.string(meta.createdAt)),\n")
        try out.write("  \"packageRoot\": \(Self.string(meta.packageRoot)),\n")
        try out.write("  \"inputs\": [\(meta.inputs.map(Self.string).joined(separator: ", "))],\n")
        try out.write("  \"toolchain\": \(meta.toolchain.map(Self.string) ?? "null"),\n")
        try out.write("  \"files\": [")
    }

    /// Files `startIndex`… of the `files` array, each rendered on a worker.
    func writeFiles<Output: TextOutput>(_ files: [FileCoverage], startIndex: Int, to out: inout Output) throws {
        // Sized so a file's piece does not grow: about 27 bytes a line and 550 a function.
        try PiecesInParallel.write(files, to: &out, capacity: { 4_096 + $0.lines.count * 32 + $0.functions.count * 768 }) { index, file, piece in
            piece.append(startIndex + index == 0 ? "\n" : ",\n")
            writeFile(file, to: &piece)
        }
    }

    /// Everything after the files: the totals and roll-ups, known only once every file is built, as
    /// `llvm-cov export` and coverage.py also put their totals after the files. Before the files, they
    /// made the streamed report write its files to a side file and copy them behind the head at the
    /// end: 8.7 ms for `copy_file_range` and 2.5 ms for `unlink`, serial, of 23 MB at 400 files.
    func writeTail<Output: TextOutput>(_ report: CoverageReport, to out: inout Output) throws {
        try out.write("\n  ],\n  \"totals\": \(Self.summary(report.totals)),\n")
        try out.write("  \"targets\": [")
        try out.write(report.targets.map { "\n    {\"name\": \(Self.string($0.name)), \"files\": \($0.files), \"summary\": \(Self.summary($0.summary))}" }.joined(separator: ","))
        try out.write("\n  ],\n  \"directories\": [")
        try out.write(report.directories.map { "\n    {\"path\": \(Self.string($0.name)), \"files\": \($0.files), \"summary\": \(Self.summary($0.summary))}" }.joined(separator: ","))
        try out.write("\n  ]")
        if let diff = report.diff { try out.write(",\n  \"diff\": " + Self.diff(diff)) }
        if let baseline = report.baseline { try out.write(",\n  \"baseline\": " + Self.baseline(baseline)) }
        if let carried = report.carriedForward {
            try out.write(",\n  \"carriedForward\": {\"commit\": \(Self.string(carried.commit)), \"skippedTests\": \(carried.tests), \"lines\": \(carried.lines)}")
        }
        try out.write(",\n  \"warnings\": [\(report.warnings.map { Self.string($0.description) }.joined(separator: ", "))]\n}\n")
    }

    private func writeFile(_ file: FileCoverage, to w: inout ByteWriter) {
        w.append("    {\"path\": "); w.append(json: file.relativePath)
        w.append(", \"absolutePath\": "); w.append(json: file.path)
        w.append(", \"target\": ")
        if let target = file.target { w.append(json: target) } else { w.append("null") }
        w.append(", \"sourceAvailable\": "); w.append(file.sourceAvailable ? "true" : "false")
        w.append(",\n     \"summary\": "); Self.summary(file.summary, into: &w)
        w.append(",\n     \"lines\": [")
        // Read by position: iterating built each line's `LineCoverage` (and an array of spans for a partial one).
        let lines = file.lines
        for position in lines.indices {
            if position > 0 { w.append(", ") }
            w.append("{\"line\": "); w.append(int: lines.lineNumber(at: position))
            // A negative counter expression leaves the count unknown: null, and the line listed in unreliableLines.
            let count = lines.count(at: position)
            if count == LineCoverage.unreliableCount { w.append(", \"count\": null, \"unreliable\": true}") } else { w.append(", \"count\": "); w.append(int: count); w.append("}") }
        }
        w.append("],\n     \"partialLines\": [")
        var first = true
        lines.forEachLineWithSpans { position, spans in
            // `LineCoverage.isPartial`: covered (a count, known) with spans that never ran.
            let count = lines.count(at: position)
            guard LineCoverage.isCovered(count: count), !spans.isEmpty else { return }
            if !first { w.append(", ") }
            first = false
            w.append("{\"line\": "); w.append(int: lines.lineNumber(at: position)); w.append(", \"count\": "); w.append(int: count)
            w.append(", \"uncovered\": [")
            for (k, span) in spans.enumerated() {
                if k > 0 { w.append(", ") }
                w.append("{\"startColumn\": "); w.append(int: span.start); w.append(", \"endColumn\": ")
                if let end = span.end { w.append(int: end) } else { w.append("null") }
                w.append(", \"count\": "); w.append(int: span.count); w.append("}")
            }
            w.append("]}")
        }
        w.append("],\n     \"missingLines\": [")
        for (i, range) in file.missingRanges.enumerated() {
            if i > 0 { w.append(", ") }
            w.append("["); w.append(int: range.lowerBound); w.append(", "); w.append(int: range.upperBound); w.append("]")
        }
        w.append("],\n     \"unreliableLines\": [")
        for (i, range) in file.unreliableRanges.enumerated() {
            if i > 0 { w.append(", ") }
            w.append("["); w.append(int: range.lowerBound); w.append(", "); w.append(int: range.upperBound); w.append("]")
        }
        w.append("],\n     \"excludedLines\": [")
        for (i, line) in file.excludedLines.enumerated() {
            if i > 0 { w.append(", ") }
            w.append(int: line)
        }
        w.append("],\n     \"functions\": [")
        for (i, function) in file.functions.enumerated() {
            w.append(i == 0 ? "\n       " : ",\n       ")
            Self.function(function, nested: true, into: &w)
        }
        w.append(file.functions.isEmpty ? "]}" : "\n     ]}")
    }

    static func function(_ f: FunctionCoverage, nested: Bool, into w: inout ByteWriter) {
        w.append("{\"name\": "); w.append(json: f.name)
        w.append(", \"mangledName\": "); w.append(json: f.mangledName)
        w.append(", \"line\": "); w.append(int: f.line)
        w.append(", \"column\": "); w.append(int: f.column)
        w.append(", \"endLine\": "); w.append(int: f.endLine)
        w.append(", \"count\": "); w.append(int: f.count)
        w.append(", \"lines\": "); ratio(f.lines, into: &w)
        w.append(", \"regions\": "); ratio(f.regions, into: &w)
        w.append(", \"instantiations\": "); ratio(f.instantiations, into: &w)
        if nested {
            w.append(", \"closures\": [")
            for (i, closure) in f.closures.enumerated() {
                if i > 0 { w.append(", ") }
                function(closure, nested: false, into: &w)
            }
            w.append("]")
        }
        w.append("}")
    }

    static func summary(_ s: CoverageSummary, into w: inout ByteWriter) {
        w.append("{\"lines\": "); ratio(s.lines, into: &w)
        w.append(", \"functions\": "); ratio(s.functions, into: &w)
        w.append(", \"regions\": "); ratio(s.regions, into: &w)
        w.append(", \"instantiations\": "); ratio(s.instantiations, into: &w)
        w.append("}")
    }

    static func ratio(_ r: CoverageRatio, into w: inout ByteWriter) {
        w.append("{\"covered\": "); w.append(int: r.covered)
        w.append(", \"total\": "); w.append(int: r.total)
        w.append(", \"percent\": ")
        if let p = r.percent { w.append(fixed: p, decimals: 4) } else { w.append("null") }
        w.append("}")
    }

    static func function(_ f: FunctionCoverage, nested: Bool) -> String {
        var w = ByteWriter()
        function(f, nested: nested, into: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    static func summary(_ s: CoverageSummary) -> String {
        var w = ByteWriter()
        summary(s, into: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The `diff` section (docs/coverage-json.md).
    static func diff(_ d: DiffCoverage) -> String {
        func ranges(_ r: [ClosedRange<UInt32>]) -> String { "[" + r.map { "[\($0.lowerBound), \($0.upperBound)]" }.joined(separator: ", ") + "]" }
        var w = ByteWriter()
        w.append("{\"base\": "); w.append(json: d.base)
        w.append(", \"mergeBase\": "); w.append(json: d.mergeBase)
        w.append(", \"includesUncommitted\": "); w.append(d.includesUncommitted ? "true" : "false")
        w.append(", \"executableLinesChanged\": "); w.append(d.hasExecutableChanges ? "true" : "false")
        w.append(", \"changedLines\": "); w.append(int: d.changedLines)
        w.append(", \"lines\": "); ratio(d.lines, into: &w)
        w.append(", \"regions\": "); ratio(d.regions, into: &w)
        w.append(", \"uncoveredLines\": "); w.append(int: d.uncoveredLines)
        w.append(", \"partialLines\": "); w.append(int: d.partialLines)
        w.append(string: ",\n    \"unmeasuredFiles\": [\(d.unmeasuredFiles.map(Self.string).joined(separator: ", "))]")
        w.append(",\n    \"files\": [")
        for (i, f) in d.files.enumerated() {
            w.append(i == 0 ? "\n      " : ",\n      ")
            w.append("{\"path\": "); w.append(json: f.path)
            w.append(", \"repoPath\": "); w.append(json: f.repoPath)
            w.append(", \"renamedFrom\": "); if let r = f.renamedFrom { w.append(json: r) } else { w.append("null") }
            w.append(", \"isNew\": "); w.append(f.isNew ? "true" : "false")
            w.append(", \"lines\": "); ratio(f.lines, into: &w)
            w.append(", \"regions\": "); ratio(f.regions, into: &w)
            w.append(string: ", \"changedLines\": " + ranges(f.changedLines))
            w.append(string: ", \"uncoveredLines\": " + ranges(f.uncoveredLines))
            w.append(string: ", \"partialLines\": " + ranges(f.partialLines))
            w.append(string: ", \"excludedLines\": [" + f.excludedLines.map(String.init).joined(separator: ", ") + "]}")
        }
        w.append(d.files.isEmpty ? "]}" : "\n    ]}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The `baseline` section (docs/coverage-json.md).
    static func baseline(_ b: BaselineComparison) -> String {
        var w = ByteWriter()
        w.append("{\"commit\": "); if let c = b.commit { w.append(json: c) } else { w.append("null") }
        w.append(", \"toolchain\": "); if let t = b.toolchain { w.append(json: t) } else { w.append("null") }
        w.append(", \"passed\": "); w.append(b.passed ? "true" : "false")
        w.append(", \"baselineLines\": "); ratio(b.baselineLines, into: &w)
        w.append(", \"currentLines\": "); ratio(b.currentLines, into: &w)
        w.append(", \"tolerance\": "); w.append(string: Format.fixed(b.tolerance, decimals: 4))
        w.append(", \"totalDropped\": "); w.append(b.totalDropped ? "true" : "false")
        w.append(",\n    \"regressions\": [")
        for (i, r) in b.regressions.enumerated() {
            w.append(i == 0 ? "\n      " : ",\n      ")
            w.append("{\"path\": "); w.append(json: r.path)
            w.append(", \"baselinePath\": "); if let p = r.baselinePath { w.append(json: p) } else { w.append("null") }
            w.append(", \"baseline\": "); if let old = r.baseline { ratio(old, into: &w) } else { w.append("null") }
            w.append(", \"current\": "); ratio(r.current, into: &w)
            w.append(", \"addedUncoveredLines\": "); w.append(int: r.addedUncovered); w.append("}")
        }
        w.append(b.regressions.isEmpty ? "]" : "\n    ]")
        w.append(string: ", \"warnings\": [\(b.warnings.map { Self.string($0.description) }.joined(separator: ", "))]}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// A JSON string literal.
    package static func string(_ value: String) -> String {
        // Fast path: nothing to escape (the common case for paths and names).
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) {
            return "\"" + value + "\""
        }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20 || s.value == 0x2028 || s.value == 0x2029:
                let hex = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
