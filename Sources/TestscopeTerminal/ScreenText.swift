import Foundation
import TestscopeReports

/// Text fitted to a terminal's width: a row never wraps, a long path loses its middle (`Sources/…/File.swift`).
package enum ScreenText {
    /// Columns the text takes (one per character; the marks Testscope prints are one column wide).
    package static func width(_ text: String) -> Int { text.count }

    /// `text` cut to `width` columns, the middle replaced by `…` (both ends say the most about a path or a test).
    package static func middle(_ text: String, width: Int) -> String {
        let count = text.count
        guard count > width else { return text }
        guard width > 1 else { return width == 1 ? "…" : "" }
        let keep = width - 1
        let head = (keep + 1) / 2, tail = keep - head
        return String(text.prefix(head)) + "…" + String(text.suffix(tail))
    }

    /// `text` cut to `width` columns at its end (`…` marks the cut).
    package static func end(_ text: String, width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return width == 1 ? "…" : "" }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `line` broken into lines of at most `width` columns, at a space when one is in the second half of
    /// the room, the continuations indented two more than the line: a failure's message is read whole,
    /// and a line the terminal wrapped would start at column 0 and break the status line's redraw.
    package static func wrap(_ line: String, width: Int) -> [String] {
        // A styled line is left as it is: a break could fall inside an escape sequence.
        guard line.count > width, width >= 20, !line.contains("\u{1B}") else { return [line] }
        let indent = min(line.prefix { $0 == " " }.count + 2, width / 2)
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var rest = Substring(line)
        var room = width
        while rest.count > room {
            let cut = rest.index(rest.startIndex, offsetBy: room)
            let head = rest[..<cut]
            let space = head.lastIndex(of: " ").flatMap { head.distance(from: head.startIndex, to: $0) > room / 2 ? $0 : nil }
            let end = space ?? cut
            lines.append((lines.isEmpty ? "" : pad) + String(rest[..<end]))
            rest = rest[end...].drop { $0 == " " }
            room = width - indent
        }
        if !rest.isEmpty || lines.isEmpty { lines.append((lines.isEmpty ? "" : pad) + String(rest)) }
        return lines
    }

    /// `12s`, `1m30s`, `1h02m`: elapsed times and estimates on one short form.
    package static func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m\(String(format: "%02d", total % 60))s" }
        return "\(total / 3600)h\(String(format: "%02d", (total % 3600) / 60))m"
    }

    /// A table whose first column (names, paths) takes what the others leave, shortened in the middle;
    /// columns listed in `droppable` (right to left) go first when even a 12-column name does not fit.
    /// Every returned line is at most `width` columns (`nil`: no limit). `right[i]`: column i is right-aligned.
    package static func table(_ rows: [[String]], right: [Bool], width: Int?, droppable: [Int] = []) -> [String] {
        guard let first = rows.first else { return [] }
        var columns = Array(0..<first.count)
        func widths(_ columns: [Int]) -> [Int] { columns.map { c in rows.map { $0.indices.contains(c) ? $0[c].count : 0 }.max() ?? 0 } }
        var measured = widths(columns)
        let minimumName = 12
        if let width {
            var drop = droppable
            while measured.dropFirst().reduce(0, +) + 2 * (columns.count - 1) + min(measured[0], minimumName) > width, let next = drop.first {
                drop.removeFirst()
                columns.removeAll { $0 == next }
                measured = widths(columns)
            }
            let others = measured.dropFirst().reduce(0, +) + 2 * (columns.count - 1)
            measured[0] = max(1, min(measured[0], width - others))
        }
        return rows.map { row in
            var parts: [String] = []
            for (i, c) in columns.enumerated() {
                var cell = row.indices.contains(c) ? row[c] : ""
                if i == 0 { cell = middle(cell, width: measured[0]) }
                let pad = String(repeating: " ", count: max(0, measured[i] - cell.count))
                parts.append(right.indices.contains(c) && right[c] ? pad + cell : (i == columns.count - 1 ? cell : cell + pad))
            }
            var line = parts.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return width.map { end(line, width: $0) } ?? line
        }
    }
}
