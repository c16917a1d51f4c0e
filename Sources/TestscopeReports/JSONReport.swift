import TestscopeCoverage

/// `coverage.json`: Testscope's documented JSON schema (docs/coverage-json.md), streamed out.
public struct JSONReport: CoverageRenderer {
    public static let schema = "https://testscope.dev/schemas/coverage/1"
    public var fileName: String { "coverage.json" }
    public var generatorVersion: String

    public init(generatorVersion: String) { self.generatorVersion = generatorVersion }

    public func render<Output: TextOutput>(_ report: CoverageReport, to out: inout Output) throws {
        let meta = report.metadata
        try out.write("{\n  \"schema\": \(Self.string(Self.schema)),\n")
        try out.write("  \"generator\": {\"name\": \"testscope\", \"version\": \(Self.string(generatorVersion))},\n")
        try out.write("  \"createdAt\": \(Self.string(meta.createdAt)),\n")
        try out.write("  \"packageRoot\": \(Self.string(meta.packageRoot)),\n")
        try out.write("  \"inputs\": [\(meta.inputs.map(Self.string).joined(separator: ", "))],\n")
        try out.write("  \"toolchain\": \(meta.toolchain.map(Self.string) ?? "null"),\n")
        try out.write("  \"totals\": \(Self.summary(report.totals)),\n")
        try out.write("  \"targets\": [")
        try out.write(report.targets.map { "\n    {\"name\": \(Self.string($0.name)), \"files\": \($0.files), \"summary\": \(Self.summary($0.summary))}" }.joined(separator: ","))
        try out.write("\n  ],\n  \"directories\": [")
        try out.write(report.directories.map { "\n    {\"path\": \(Self.string($0.name)), \"files\": \($0.files), \"summary\": \(Self.summary($0.summary))}" }.joined(separator: ","))
        try out.write("\n  ],\n  \"files\": [")
        for (index, file) in report.files.enumerated() {
            try out.write(index == 0 ? "\n" : ",\n")
            try writeFile(file, to: &out)
        }
        try out.write("\n  ],\n  \"warnings\": [\(report.warnings.map(Self.string).joined(separator: ", "))]\n}\n")
    }

    private func writeFile<Output: TextOutput>(_ file: FileCoverage, to out: inout Output) throws {
        try out.write("    {\"path\": \(Self.string(file.relativePath)), \"absolutePath\": \(Self.string(file.path)), ")
        try out.write("\"target\": \(file.target.map(Self.string) ?? "null"), \"sourceAvailable\": \(file.sourceAvailable),\n")
        try out.write("     \"summary\": \(Self.summary(file.summary)),\n")
        var chunk = "     \"lines\": ["
        for (i, line) in file.lines.enumerated() {
            if i > 0 { chunk += ", " }
            chunk += "{\"line\": \(line.line), \"count\": \(line.count)}"
            if chunk.utf8.count > 8192 { try out.write(chunk); chunk = "" }
        }
        chunk += "],\n     \"partialLines\": ["
        var first = true
        for line in file.lines where line.isPartial {
            if !first { chunk += ", " }
            first = false
            let spans = line.uncoveredSpans.map {
                "{\"startColumn\": \($0.start), \"endColumn\": \($0.end.map(String.init) ?? "null"), \"count\": \($0.count)}"
            }
            chunk += "{\"line\": \(line.line), \"count\": \(line.count), \"uncovered\": [\(spans.joined(separator: ", "))]}"
        }
        chunk += "],\n     \"missingLines\": [\(file.missingRanges.map { "[\($0.lowerBound), \($0.upperBound)]" }.joined(separator: ", "))],"
        chunk += "\n     \"excludedLines\": [\(file.excludedLines.map(String.init).joined(separator: ", "))],\n     \"functions\": ["
        try out.write(chunk)
        for (i, function) in file.functions.enumerated() {
            try out.write((i == 0 ? "\n       " : ",\n       ") + Self.function(function, nested: true))
        }
        try out.write(file.functions.isEmpty ? "]}" : "\n     ]}")
    }

    static func function(_ f: FunctionCoverage, nested: Bool) -> String {
        var text = "{\"name\": \(string(f.name)), \"mangledName\": \(string(f.mangledName)), \"line\": \(f.line), "
            + "\"column\": \(f.column), \"endLine\": \(f.endLine), \"count\": \(f.count), "
            + "\"lines\": \(ratio(f.lines)), \"regions\": \(ratio(f.regions)), \"instantiations\": \(ratio(f.instantiations))"
        if nested {
            text += ", \"closures\": [\(f.closures.map { function($0, nested: false) }.joined(separator: ", "))]"
        }
        return text + "}"
    }

    static func summary(_ s: CoverageSummary) -> String {
        "{\"lines\": \(ratio(s.lines)), \"functions\": \(ratio(s.functions)), \"regions\": \(ratio(s.regions)), \"instantiations\": \(ratio(s.instantiations))}"
    }

    static func ratio(_ r: CoverageRatio) -> String {
        let percent = r.percent.map { Format.fixed($0, decimals: 4) } ?? "null"
        return "{\"covered\": \(r.covered), \"total\": \(r.total), \"percent\": \(percent)}"
    }

    /// A JSON string literal.
    public static func string(_ value: String) -> String {
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
