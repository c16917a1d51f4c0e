import TestscopeCoverage

/// A link of the report's top navigation: Coverage, Tests, Flaky (the nav shows exactly the items it
/// is given; `PagesManifest.navigation` says which).
package struct HTMLNavigationItem: Equatable, Sendable {
    package var title: String
    /// Relative to the report's folder, e.g. `index.html` or `tests.html`.
    package var href: String

    package init(title: String, href: String) {
        self.title = title
        self.href = href
    }

    package static let coverage = HTMLNavigationItem(title: "Coverage", href: "index.html")
}

/// Builds the coverage pages' view models (see `HTMLViewModel`) from the coverage model.
enum HTMLModels {
    static func ratio(_ ratio: CoverageRatio, _ watermarks: Watermarks) -> RatioModel {
        RatioModel(text: Format.percent(ratio), covered: String(ratio.covered), total: String(ratio.total),
                   level: level(ratio, watermarks), width: width(ratio),
                   sort: ratio.percent.map { Format.fixed($0, decimals: 4) } ?? "-1")
    }

    static func level(_ ratio: CoverageRatio, _ watermarks: Watermarks) -> String {
        guard let percent = ratio.percent else { return "na" }
        return percent < watermarks.low ? "lo" : percent < watermarks.high ? "mid" : "hi"
    }

    /// `level` as a string literal.
    static func levelTag(_ ratio: CoverageRatio, _ watermarks: Watermarks) -> StaticString {
        guard let percent = ratio.percent else { return "na" }
        return percent < watermarks.low ? "lo" : percent < watermarks.high ? "mid" : "hi"
    }

    static func width(_ ratio: CoverageRatio) -> String {
        ratio.percent.map { Format.fixed($0, decimals: 1) } ?? "0"
    }

    /// The three totals cards (lines, functions, regions).
    static func totals(_ summary: CoverageSummary, _ watermarks: Watermarks) -> [RatioModel] {
        [("lines", "Lines", summary.lines), ("functions", "Functions", summary.functions), ("regions", "Regions", summary.regions)]
            .map { key, name, value in
                var card = ratio(value, watermarks)
                card.key = key
                card.name = name
                return card
            }
    }

    /// Lines, functions and regions of a summary, for a table row.
    static func summaryCells(_ summary: CoverageSummary, _ watermarks: Watermarks) -> SummaryCells {
        SummaryCells(lines: ratio(summary.lines, watermarks), functions: ratio(summary.functions, watermarks),
                     regions: ratio(summary.regions, watermarks))
    }

    /// A row of a file table; `href` is relative to the page showing the table.
    static func fileRow(_ file: FileSummary, href: String, _ watermarks: Watermarks) -> FileRowModel {
        let (dir, base) = split(file.relativePath)
        return FileRowModel(cells: summaryCells(file.summary, watermarks), path: file.relativePath, dir: dir, base: base, href: href,
                            missed: String(file.summary.lines.missed),
                            full: file.summary.lines.missed == 0 && file.summary.regions.missed == 0 && file.summary.functions.missed == 0)
    }

    /// `Sources/A/B.swift` → (`Sources/A/`, `B.swift`).
    static func split(_ path: String) -> (dir: String, base: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    /// When and from what the report was made.
    static func facts(_ metadata: ReportMetadata, generator: String, watermarks: Watermarks) -> [FactModel] {
        var facts = [
            FactModel(label: "Package", value: metadata.packageRoot, detail: metadata.packageRoot),
            FactModel(label: "Created", value: metadata.createdAt, detail: "when this report was made"),
        ]
        if !metadata.inputs.isEmpty {
            let names = metadata.inputs.map { split($0).base }
            facts.append(FactModel(label: metadata.inputs.count == 1 ? "Input" : "Inputs", value: names.joined(separator: ", "),
                                   detail: metadata.inputs.joined(separator: "\n")))
        }
        // What read the data: the native engine reads profiles without llvm-cov, so naming llvm-cov's path was wrong.
        let reader = metadata.reader ?? "unknown"
        facts.append(FactModel(label: "Read by", value: reader, detail: "what read the coverage data"))
        facts.append(FactModel(label: "Generator", value: generator, detail: generator))
        return facts
    }

    /// A directory or target row.
    static func groupRow(name: String, files: Int, summary: CoverageSummary, _ watermarks: Watermarks) -> GroupRowModel {
        GroupRowModel(cells: summaryCells(summary, watermarks), name: name, files: String(files))
    }

    /// One function (or closure) row for `function-row.mustache`; `fold` is the markup of a function's
    /// closures toggle (numbers only), nil for closures and functions without closures.
    struct FunctionRow: HTMLRow {
        var function: FunctionCoverage
        var isClosure: Bool
        /// The row's anchor is this, `L` and the function's line (written as bytes, not made a `String` a row).
        var anchorPrefix: String
        var watermarks: Watermarks
        var fold: String? = nil

        enum Field: String {
            case kind, hit, anchor, name, fold, line, count, exact
            case linesText, linesLevel, linesWidth, linesRatio, regionsText, regionsLevel, regionsWidth, regionsRatio
        }

        func value(_ field: Field) -> String? {
            switch field {
            case .kind: return isClosure ? "closure" : "function"
            case .hit: return function.isCovered ? "hit" : "missed"
            case .anchor: return "\(anchorPrefix)L\(function.line)"
            case .name: return function.name
            case .fold: return fold
            case .line: return String(function.line)
            case .count: return HTMLFormat.abbreviatedCount(function.count)
            case .exact: return "\(function.count) \(function.count == 1 ? "call" : "calls")"
            case .linesText: return Format.percent(function.lines)
            case .linesLevel: return HTMLModels.level(function.lines, watermarks)
            case .linesWidth: return HTMLModels.width(function.lines)
            case .linesRatio: return "\(function.lines.covered)/\(function.lines.total)"
            case .regionsText: return Format.percent(function.regions)
            case .regionsLevel: return HTMLModels.level(function.regions, watermarks)
            case .regionsWidth: return HTMLModels.width(function.regions)
            case .regionsRatio: return "\(function.regions.covered)/\(function.regions.total)"
            }
        }

        /// Numbers and fixed words as bytes (nothing in them needs escaping); the rest through `value`.
        func append(_ field: Field, escaped: Bool, to out: inout ByteWriter) {
            switch field {
            case .kind: out.append(isClosure ? "closure" : "function")
            case .hit: out.append(function.isCovered ? "hit" : "missed")
            case .line: out.append(int: UInt64(function.line))
            case .anchor:
                if escaped { HTMLEscaping.appendEscaped(anchorPrefix.utf8, to: &out) } else { out.append(string: anchorPrefix) }
                out.append(byte: UInt8(ascii: "L"))
                out.append(int: UInt64(function.line))
            case .count where function.count < 1000:
                out.append(int: function.count)
            case .exact:
                out.append(int: function.count)
                out.append(function.count == 1 ? " call" : " calls")
            case .linesRatio, .regionsRatio:
                let ratio = field == .linesRatio ? function.lines : function.regions
                out.append(int: UInt64(ratio.covered))
                out.append(byte: UInt8(ascii: "/"))
                out.append(int: UInt64(ratio.total))
            // `value`'s texts written in place (a `String` per field and row was 3 % of the report).
            case .linesText, .regionsText:
                if let percent = (field == .linesText ? function.lines : function.regions).percent {
                    out.append(fixed: percent, decimals: 2)
                    out.append(byte: UInt8(ascii: "%"))
                } else {
                    out.append("–")
                }
            case .linesWidth, .regionsWidth:
                if let percent = (field == .linesWidth ? function.lines : function.regions).percent {
                    out.append(fixed: percent, decimals: 1)
                } else {
                    out.append(byte: UInt8(ascii: "0"))
                }
            case .linesLevel, .regionsLevel:
                out.append(HTMLModels.levelTag(field == .linesLevel ? function.lines : function.regions, watermarks))
            default:
                guard let text = value(field) else { return }
                if escaped { HTMLEscaping.appendEscaped(text.utf8, to: &out) } else { out.append(string: text) }
            }
        }
    }

    /// The function table's bodies: one `<tbody>` per function (the function's row, then its closures'),
    /// the functions that never ran first, then the rest in source order. Closures are folded by
    /// report.js (`tbody.open` shows them); without scripts every row shows.
    static func functionRows(_ file: FileCoverage, anchorPrefix: String, template: HTMLRowTemplate,
                             _ watermarks: Watermarks) -> WrittenBytes {
        // About 500 bytes a row: sized so the buffer does not grow.
        var out = ByteWriter(capacity: file.functions.reduce(1 << 12) { $0 + 640 * (1 + $1.closures.count) })
        let template = template.compiled(for: FunctionRow.self)
        for function in functionOrder(file.functions) {
            out.append(function.closures.isEmpty ? "<tbody>" : "<tbody class=\"group\">")
            template.render(FunctionRow(function: function, isClosure: false, anchorPrefix: anchorPrefix,
                                        watermarks: watermarks, fold: fold(function.closures)), to: &out)
            for closure in function.closures {
                template.render(FunctionRow(function: closure, isClosure: true, anchorPrefix: anchorPrefix,
                                            watermarks: watermarks), to: &out)
            }
            out.append("</tbody>\n")
        }
        return out.finish()
    }

    /// The table's order: functions that never ran first, each part in source order.
    static func functionOrder(_ functions: [FunctionCoverage]) -> [FunctionCoverage] {
        functions.sorted { ($0.isCovered ? 1 : 0, $0.line, $0.column) < ($1.isCovered ? 1 : 0, $1.line, $1.column) }
    }

    /// A function's closures toggle: how many, and how many never ran (markup of numbers only).
    static func fold(_ closures: [FunctionCoverage]) -> String? {
        guard !closures.isEmpty else { return nil }
        let missed = closures.filter { !$0.isCovered }.count
        return "<button type=\"button\" class=\"fold\" aria-expanded=\"false\" title=\"Show or hide the closures inside this function\">"
            + "\(closures.count) \(closures.count == 1 ? "closure" : "closures")"
            + (missed == 0 ? "" : ", <span class=\"unc\">\(missed) not run</span>") + "</button>"
    }

    /// The function table's one-line summary: `42 functions`, `3 not run`, `118 closures, 20 not run`.
    static func functionLabels(_ functions: [FunctionCoverage]) -> (functions: String, notRun: String?, closures: String?) {
        let notRun = functions.filter { !$0.isCovered }.count
        let closures = functions.flatMap(\.closures)
        let closuresNotRun = closures.filter { !$0.isCovered }.count
        return ("\(functions.count) \(functions.count == 1 ? "function" : "functions")",
                notRun == 0 ? nil : "\(notRun) not run",
                closures.isEmpty ? nil : "\(closures.count) \(closures.count == 1 ? "closure" : "closures")"
                    + (closuresNotRun == 0 ? "" : ", \(closuresNotRun) not run"))
    }

    /// Links to the pages of a table split into pages (nil for one page).
    static func pager(count: Int, current: Int, href: (Int) -> String) -> PagerModel? {
        guard count > 1 else { return nil }
        return PagerModel(links: (0..<count).map { PagerModel.Link(label: String($0 + 1), href: href($0), current: $0 == current) })
    }
}
