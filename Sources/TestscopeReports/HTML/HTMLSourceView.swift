import TestscopeCoverage

/// One file's annotated source for the file page: every line as a `source-line.mustache` row with
/// its number, state (covered, uncovered, partial, excluded), abbreviated and exact count, and the
/// highlighted, escaped code with the never-run spans of partial lines marked.
struct HTMLSourceView {
    /// The CSS class of a line (the `state` variable).
    enum State: String {
        case none = "", covered = "cov", uncovered = "unc", partial = "par", excluded = "exc", unreliable = "unr"

        /// `rawValue` as a string literal.
        var tag: StaticString {
            switch self {
            case .none: return ""
            case .covered: return "cov"
            case .uncovered: return "unc"
            case .partial: return "par"
            case .excluded: return "exc"
            case .unreliable: return "unr"
            }
        }
    }

    /// The rendered rows and what the page says about them.
    struct Result {
        var rows: WrittenBytes
        var notices: [String]
        var uncoveredLines = 0
        var partialLines = 0
        var excludedLines = 0
        /// Lines whose count is unknown (a negative counter expression).
        var unreliableLines = 0
    }

    /// One row's values; `code` is HTML already (highlighted and escaped). The anchor, number and
    /// state are written as bytes directly (they are made of characters that need no escaping).
    struct Row: HTMLRow {
        /// The page's anchor prefix (valid while the row is rendered): a buffer, not an array, so a
        /// row costs no retain and release (1.9 million of them for the 400-file package's rows).
        var anchorPrefix: UnsafeBufferPointer<UInt8>
        var number: UInt32
        var state: State
        /// The line's execution count (none for `.none` and `.excluded` rows); `count` and `exact`
        /// are made from it and the state. Two `String`s a line were 3 % of an HTML report's
        /// instructions (400 files): the escaped forms are written as digits and literals instead.
        var executions: UInt64 = 0
        /// The row's code, in the page's code buffer (valid while the row is rendered).
        var code: UnsafeBufferPointer<UInt8>
        /// A line the change since `--diff-base` added (class `chg` beside the state).
        var changed = false

        enum Field: String { case anchor, number, state, count, exact, code }

        static let excludedText: StaticString = "excluded by a testscope:ignore marker"
        static let unreliableText: StaticString =
            "unknown: a counter expression went negative (see the run's warning for why); not counted as covered"
        static let uncoveredText: StaticString = "0: never ran"
        static let partialText: StaticString = ": ran, but the highlighted part never did"

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
            case .excluded: return "\(Self.excludedText)"
            case .unreliable: return "\(Self.unreliableText)"
            case .uncovered: return "\(Self.uncoveredText)"
            case .partial: return "\(executions)\(Self.partialText)"
            case .covered: return String(executions)
            }
        }

        func value(_ field: Field) -> String? {
            switch field {
            case .anchor: return String(decoding: anchorPrefix, as: UTF8.self) + "L" + String(number)
            case .number: return String(number)
            case .state: return changed ? state.rawValue + " chg" : state.rawValue
            case .count: return count
            case .exact: return exact
            case .code: return String(decoding: code, as: UTF8.self)
            }
        }

        func append(_ field: Field, escaped: Bool, to out: inout ByteWriter) {
            switch field {
            case .code where !escaped:
                out.append(code)
            case .number:
                out.append(int: UInt64(number))
            case .anchor:
                out.append(anchorPrefix)
                out.append(byte: UInt8(ascii: "L"))
                out.append(int: UInt64(number))
            case .state:
                out.append(state.tag)
                if changed { out.append(" chg") }
            // Digits and the literals above need no escaping.
            case .count where escaped:
                switch state {
                case .none, .excluded: break
                case .unreliable: out.append(byte: UInt8(ascii: "?"))
                case .covered, .uncovered, .partial:
                    if executions < 1000 { out.append(int: executions) } else { HTMLEscaping.appendEscaped(count.utf8, to: &out) }
                }
            case .exact where escaped:
                switch state {
                case .none: break
                case .excluded: out.append(Self.excludedText)
                case .unreliable: out.append(Self.unreliableText)
                case .uncovered: out.append(Self.uncoveredText)
                case .partial: out.append(int: executions); out.append(Self.partialText)
                case .covered: out.append(int: executions)
                }
            default:
                guard let text = value(field) else { return }
                if escaped { HTMLEscaping.appendEscaped(text.utf8, to: &out) } else { out.append(string: text) }
            }
        }
    }

    static func render(file: FileCoverage, source: SourceText?, anchorPrefix: String, template: HTMLRowTemplate,
                       changed: Set<UInt32> = []) -> Result {
        var result = Result(rows: .empty, notices: [])
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
        // Sized so it does not grow: rows are about 130 bytes of markup and four times their source
        // (`lineCount * 120 + source * 2` grew, and copied, on 301 of the 400-file package's pages).
        var rows = ByteWriter(capacity: lineCount * 136 + (source?.bytes.count ?? 0) * 4)
        let prefix = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: anchorPrefix.utf8.count)
        _ = prefix.initialize(from: anchorPrefix.utf8)
        defer { prefix.deallocate() }
        let template = template.compiled(for: Row.self)
        // The lines in order (a partial line's spans found without a search per line), and the
        // excluded ones as flags (a set lookup per line was 2 % of the report's CPU samples).
        var lines = file.lines.makeIterator()
        var nextLine = lines.next()
        var isExcluded = [Bool](repeating: false, count: lineCount + 1)
        for line in excluded where Int(line) <= lineCount { isExcluded[Int(line)] = true }
        var tokenIndex = 0
        var code = ByteWriter(capacity: 1 << 12)
        // The source and its tokens as buffers, once per file: per token, the arrays' accessors
        // and bounds checks were a fifth of the rows' instructions.
        let sourceBytes = source?.bytes ?? []
        // Read once: bound from the optional at each line, the source (its two arrays retained and
        // released) was copied 269,600 times at 400 files.
        let lineRanges = source?.lineRanges ?? []
        let validUTF8 = source?.isValidUTF8 ?? true
        sourceBytes.withUnsafeBufferPointer { bytes in tokens.withUnsafeBufferPointer { tokens in
        for number in stride(from: 1, through: lineCount, by: 1) {
            while let line = nextLine, Int(line.line) < number { nextLine = lines.next() }
            let coverage = nextLine.flatMap { Int($0.line) == number ? $0 : nil }
            var row = Row(anchorPrefix: UnsafeBufferPointer(prefix), number: UInt32(number), state: .none, code: UnsafeBufferPointer(start: nil, count: 0))
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
            code.withBytes { bytes in
                row.code = bytes
                template.render(row, to: &rows)
            }
        }
        } }
        result.rows = rows.finish()
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

    /// `</span>` as a string literal.
    @inline(__always) static var closeTag: StaticString { "</span>" }

    /// A token's opening tag: string literals, whose UTF-8 is copied without the lazy-global check
    /// and the retain that static arrays cost per token.
    @inline(__always)
    static func openTag(_ kind: SwiftHighlighter.Kind) -> StaticString {
        switch kind {
        case .keyword: return "<span class=\"k\">"
        case .string: return "<span class=\"s\">"
        case .comment: return "<span class=\"c\">"
        case .number: return "<span class=\"n\">"
        case .attribute: return "<span class=\"a\">"
        case .directive: return "<span class=\"d\">"
        case .type: return "<span class=\"t\">"
        }
    }

    /// The line's code: token spans (`<span class="k">`), each wholly inside or outside the
    /// never-run spans (`<span class="u" title="…">`), so the markup always nests.
    static func appendCode(_ bytes: UnsafeBufferPointer<UInt8>, validUTF8: Bool, range: Range<Int>,
                           tokens: UnsafeBufferPointer<SwiftHighlighter.Token>, firstToken: Int,
                           uncovered: [(range: Range<Int>, count: UInt64)], to out: inout ByteWriter) {
        var position = range.lowerBound
        var tokenIndex = firstToken
        var spanIndex = 0
        var insideSpan = false
        while position < range.upperBound {
            if spanIndex < uncovered.count {
                let span = uncovered[spanIndex]
                if !insideSpan && position == span.range.lowerBound {
                    out.append("<span class=\"u\" title=\"not executed: region count ")
                    out.append(int: span.count)
                    out.append("\">")
                    insideSpan = true
                } else if insideSpan && position == span.range.upperBound {
                    out.append(Self.closeTag)
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
                out.append(openTag(kind))
                appendText(bytes, validUTF8: validUTF8, position..<end, to: &out)
                out.append(Self.closeTag)
            } else {
                appendText(bytes, validUTF8: validUTF8, position..<end, to: &out)
            }
            position = end
        }
        if insideSpan { out.append(Self.closeTag) }
    }

    @inline(__always)
    static func appendText(_ bytes: UnsafeBufferPointer<UInt8>, validUTF8: Bool, _ range: Range<Int>, to out: inout ByteWriter) {
        if validUTF8 {
            HTMLEscaping.appendEscaped(buffer: UnsafeBufferPointer(rebasing: bytes[range]), to: &out)
        } else {
            HTMLEscaping.appendEscaped(String(decoding: bytes[range], as: UTF8.self).utf8, to: &out)
        }
    }
}
