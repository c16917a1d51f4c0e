import TestscopeCoverage
import TestscopeExecution

/// Watermarks for colouring percentages: below `low` red, below `high` yellow, else green.
public struct Watermarks: Sendable, Equatable {
    public var low: Double
    public var high: Double
    public init(low: Double = 50, high: Double = 80) {
        self.low = low
        self.high = high
    }

    /// `LOW,HIGH` percentages with LOW <= HIGH (`--watermarks`), or nil.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, parts[0] <= parts[1], parts.allSatisfy({ (0...100).contains($0) }) else { return nil }
        self.init(low: parts[0], high: parts[1])
    }
}

/// The terminal table: one row per file with lines, functions and regions (covered/total and %),
/// then the totals; `showMissing` adds uncovered line ranges like coverage.py's `--show-missing`.
package struct TextReport: ReportRenderer {
    package var terminal: Terminal
    package var watermarks: Watermarks
    package var showMissing: Bool
    package var fileName: String { "coverage.txt" }

    package init(terminal: Terminal, watermarks: Watermarks = Watermarks(), showMissing: Bool = false) {
        self.terminal = terminal
        self.watermarks = watermarks
        self.showMissing = showMissing
    }

    package func render<Output: TextOutput>(_ report: CoverageReport, to output: inout Output) throws {
        var rows: [[Cell]] = []
        for file in report.files {
            var row = cells(file.relativePath, file.summary)
            if showMissing { row.append(Cell(Format.ranges(file.missingRanges))) }
            rows.append(row)
        }
        var total = cells("TOTAL", report.totals)
        if showMissing { total.append(Cell("")) }
        var header = ["File", "Lines", "", "Functions", "", "Regions", ""].map { Cell($0) }
        if showMissing { header.append(Cell("Missing")) }
        try table(header: header, rows: rows, total: total, to: &output)
        if report.targets.count > 1 {
            try output.write("\n")
            var header = ["Target", "Lines", "", "Functions", "", "Regions", ""].map { Cell($0) }
            header[0] = Cell("Target")
            try table(header: header, rows: report.targets.map { cells($0.name, $0.summary) }, total: nil, to: &output)
        }
    }

    struct Cell {
        var text: String
        /// `text.count`, counted once (counting the characters of every cell twice, and joining
        /// each row's parts, was most of the text table's 12 M instructions at 400 files).
        var width: Int
        var style: Terminal.Style?
        var rightAligned = false
        init(_ text: String, style: Terminal.Style? = nil, right: Bool = false) {
            self.text = text
            self.width = text.count
            self.style = style
            self.rightAligned = right
        }
    }

    func cells(_ name: String, _ summary: CoverageSummary) -> [Cell] {
        var row = [Cell(name)]
        for ratio in [summary.lines, summary.functions, summary.regions] {
            row.append(Cell("\(ratio.covered)/\(ratio.total)", right: true))
            row.append(Cell(Format.percent(ratio), style: style(ratio), right: true))
        }
        return row
    }

    func style(_ ratio: CoverageRatio) -> Terminal.Style {
        guard let p = ratio.percent else { return .dim }
        if p < watermarks.low { return .red }
        if p < watermarks.high { return .yellow }
        return .green
    }

    private func table<Output: TextOutput>(header: [Cell], rows: [[Cell]], total: [Cell]?, to output: inout Output) throws {
        let all = [header] + rows + (total.map { [$0] } ?? [])
        var widths = Array(repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.width) } }
        let spaces = String(repeating: " ", count: widths.max() ?? 0)
        func line(_ row: [Cell], bold: Bool = false) -> String {
            var joined = ""
            for (i, cell) in row.enumerated() {
                if i > 0 { joined += "  " }
                let pad = spaces.prefix(widths[i] - cell.width)
                if let style = cell.style {
                    let text = cell.rightAligned ? String(pad) + cell.text : cell.text + (i == row.count - 1 ? "" : String(pad))
                    joined += terminal.styled(text, style)
                } else if cell.rightAligned {
                    joined += pad
                    joined += cell.text
                } else {
                    joined += cell.text
                    if i != row.count - 1 { joined += pad }
                }
            }
            // The trailing spaces of a row: a space is a character of its own, so dropping bytes is
            // dropping characters.
            while joined.utf8.last == 0x20 { joined.removeLast() }
            return bold ? terminal.styled(joined, .bold) : joined
        }
        try output.write(line(header, bold: true) + "\n")
        let ruleWidth = widths.reduce(0, +) + 2 * (widths.count - 1)
        try output.write(String(repeating: "-", count: min(ruleWidth, 160)) + "\n")
        for row in rows { try output.write(line(row) + "\n") }
        if let total {
            try output.write(String(repeating: "-", count: min(ruleWidth, 160)) + "\n")
            try output.write(line(total, bold: true) + "\n")
        }
    }
}
