import Mustache
import TestscopeCoverage

/// One file's annotated source for the file page: every line as a `source-line.mustache` row with
/// its number, state (covered, uncovered, partial, excluded), abbreviated and exact count, and the
/// highlighted, escaped code with the never-run spans of partial lines marked.
struct HTMLSourceView {
    /// The CSS class of a line (the `state` variable).
    enum State: String {
        case none = "", covered = "cov", uncovered = "unc", partial = "par", excluded = "exc", unreliable = "unr"
    }

    /// The rendered rows and what the page says about them.
    struct Result {
        var rows: String
        var notices: [String]
        var uncoveredLines = 0
        var partialLines = 0
        var excludedLines = 0
        /// Lines whose count is unknown (a negative counter expression).
        var unreliableLines = 0
    }

    /// One row's values; `code` is HTML already (highlighted and escaped).
    struct Row: MustacheParent {
        var anchorPrefix: String
        var number: Int
        var state: State
        /// The line's execution count (none for `.none` and `.excluded` rows).
        var executions: UInt64 = 0
        var code: String
        /// A line the change since `--diff-base` added (class `chg` beside the state).
        var changed = false

        /// The abbreviated count ("" where there is none, "?" where it is unknown).
        var count: String {
            switch state {
            case .none, .excluded: return ""
            case .unreliable: return "?"
            case .covered, .uncovered, .partial: return HTMLFormat.abbreviatedCount(executions)
            }
        }

        /// The exact count, as the row's title says it.
        var exact: String {
            switch state {
            case .none: return ""
            case .excluded: return "excluded by a testscope:ignore marker"
            case .unreliable: return "unknown: a counter expression went negative (see the run's warning for why); not counted as covered"
            case .uncovered: return "0: never ran"
            case .partial: return "\(executions): ran, but the highlighted part never did"
            case .covered: return String(executions)
            }
        }

        func child(named name: String) -> Any? {
            switch name {
            case "anchor": return anchorPrefix + "L" + String(number)
            case "number": return String(number)
            case "state": return changed ? state.rawValue + " chg" : state.rawValue
            case "count": return count
            case "exact": return exact
            case "code": return code
            default: return nil
            }
        }
    }

    /// The file's rows, each rendered with `source-line.mustache`.
    static func render(file: FileCoverage, source: SourceText?, anchorPrefix: String, templates: HTMLTemplates,
                       changed: Set<UInt32> = []) throws -> Result {
        var result = Result(rows: "", notices: [])
        let lastCovered = Int(max(file.lines.last?.line ?? 0, file.excludedLines.max() ?? 0))
        var excluded = Set(file.excludedLines)
        var tokens: [SwiftHighlighter.Token] = []
        var lineCount = lastCovered
        if let source {
            excluded.formUnion(ExclusionMarkers.excludedLines(in: source).lines)
            tokens = SwiftHighlighter.tokens(source.bytes)
            lineCount = max(source.lineCount, lastCovered)
            if lastCovered > source.lineCount {
                result.notices.append("The source has \(source.lineCount) lines but the coverage data reaches line \(lastCovered): "
                    + "it changed since the run, so the counts may not match the text.")
            }
            if !source.isValidUTF8 {
                result.notices.append("The source is not valid UTF-8; invalid bytes are shown as \u{FFFD}.")
            }
        } else {
            result.notices.append("The source file \(file.path) could not be read (deleted or moved since the run); "
                + "the counts are shown by line number only.")
        }
        // The lines in order (a partial line's spans found without a search per line), and the
        // excluded ones as flags (a set lookup per line was 2 % of the report's CPU samples).
        var lines = file.lines.makeIterator()
        var nextLine = lines.next()
        var isExcluded = [Bool](repeating: false, count: lineCount + 1)
        for line in excluded where Int(line) <= lineCount { isExcluded[Int(line)] = true }
        var tokenIndex = 0
        var code: [UInt8] = []
        // The source and its tokens as buffers, once per file: per token, the arrays' accessors
        // and bounds checks were a fifth of the rows' instructions.
        let sourceBytes = source?.bytes ?? []
        // Read once: bound from the optional at each line, the source (its two arrays retained and
        // released) was copied 269,600 times at 400 files.
        let lineRanges = source?.lineRanges ?? []
        let validUTF8 = source?.isValidUTF8 ?? true
        try sourceBytes.withUnsafeBufferPointer { bytes in try tokens.withUnsafeBufferPointer { tokens in
        for number in stride(from: 1, through: lineCount, by: 1) {
            while let line = nextLine, Int(line.line) < number { nextLine = lines.next() }
            let coverage = nextLine.flatMap { Int($0.line) == number ? $0 : nil }
            var row = Row(anchorPrefix: anchorPrefix, number: number, state: .none, code: "")
            row.changed = !changed.isEmpty && changed.contains(UInt32(number))
            if isExcluded[number] {
                row.state = .excluded
                result.excludedLines += 1
            } else if let coverage {
                row.executions = coverage.count
                if coverage.isUnreliable {
                    row.state = .unreliable
                    result.unreliableLines += 1
                } else if coverage.count == 0 {
                    row.state = .uncovered
                    result.uncoveredLines += 1
                } else if coverage.isPartial {
                    row.state = .partial
                    result.partialLines += 1
                } else {
                    row.state = .covered
                }
            }
            code.removeAll()
            if number <= lineRanges.count {
                let range = lineRanges[number - 1]
                while tokenIndex < tokens.count && tokens[tokenIndex].end <= range.lowerBound { tokenIndex += 1 }
                let spans = row.state == .partial ? uncoveredRanges(coverage!.uncoveredSpans, line: range, bytes: sourceBytes) : []
                appendCode(bytes, validUTF8: validUTF8, range: range, tokens: tokens, firstToken: tokenIndex, uncovered: spans, to: &code)
            }
            row.code = String(decoding: code, as: UTF8.self)
            result.rows += try templates.render("source-line", row)
        }
        } }
        return result
    }

    /// The never-run spans of a partial line as byte ranges inside it, sorted, merged, on character boundaries.
    static func uncoveredRanges(_ spans: [ColumnSpan], line: Range<Int>, bytes: [UInt8]) -> [(range: Range<Int>, count: UInt64)] {
        var ranges: [(range: Range<Int>, count: UInt64)] = []
        for span in spans.sorted(by: { $0.start < $1.start }) {
            var lower = min(line.upperBound, line.lowerBound + Int(span.start) - 1)
            var upper = min(line.upperBound, span.end.map { line.lowerBound + Int($0) - 1 } ?? line.upperBound)
            while lower < line.upperBound && bytes[lower] & 0xC0 == 0x80 { lower += 1 }
            while upper < line.upperBound && bytes[upper] & 0xC0 == 0x80 { upper += 1 }
            guard lower < upper else { continue }
            if let last = ranges.last, last.range.upperBound >= lower {
                ranges[ranges.count - 1].range = last.range.lowerBound..<max(last.range.upperBound, upper)
            } else {
                ranges.append((lower..<upper, span.count))
            }
        }
        return ranges
    }

    /// The line's code: token spans (`<span class="k">`), each wholly inside or outside the
    /// never-run spans (`<span class="u" title="…">`), so the markup always nests.
    static func appendCode(_ bytes: UnsafeBufferPointer<UInt8>, validUTF8: Bool, range: Range<Int>,
                           tokens: UnsafeBufferPointer<SwiftHighlighter.Token>, firstToken: Int,
                           uncovered: [(range: Range<Int>, count: UInt64)], to out: inout [UInt8]) {
        var position = range.lowerBound
        var tokenIndex = firstToken
        var spanIndex = 0
        var insideSpan = false
        while position < range.upperBound {
            if spanIndex < uncovered.count {
                let span = uncovered[spanIndex]
                if !insideSpan && position == span.range.lowerBound {
                    out += "<span class=\"u\" title=\"not executed: region count \(span.count)\">".utf8
                    insideSpan = true
                } else if insideSpan && position == span.range.upperBound {
                    out += "</span>".utf8
                    insideSpan = false
                    spanIndex += 1
                    continue
                }
            }
            while tokenIndex < tokens.count && tokens[tokenIndex].end <= position { tokenIndex += 1 }
            var end = range.upperBound
            var kind: SwiftHighlighter.Kind? = nil
            if tokenIndex < tokens.count {
                let token = tokens[tokenIndex]
                if token.start <= position { kind = token.kind; end = min(end, token.end) } else { end = min(end, token.start) }
            }
            if spanIndex < uncovered.count {
                let span = uncovered[spanIndex].range
                end = min(end, insideSpan ? span.upperBound : (span.lowerBound > position ? span.lowerBound : end))
            }
            if let kind {
                out += "<span class=\"\(kind.rawValue)\">".utf8
                appendText(bytes, validUTF8: validUTF8, position..<end, to: &out)
                out += "</span>".utf8
            } else {
                appendText(bytes, validUTF8: validUTF8, position..<end, to: &out)
            }
            position = end
        }
        if insideSpan { out += "</span>".utf8 }
    }

    @inline(__always)
    static func appendText(_ bytes: UnsafeBufferPointer<UInt8>, validUTF8: Bool, _ range: Range<Int>, to out: inout [UInt8]) {
        if validUTF8 {
            HTMLEscaping.appendEscaped(buffer: UnsafeBufferPointer(rebasing: bytes[range]), to: &out)
        } else {
            HTMLEscaping.appendEscaped(String(decoding: bytes[range], as: UTF8.self).utf8, to: &out)
        }
    }
}
