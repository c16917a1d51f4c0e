import Foundation
import TestscopeExecution
import TestscopeHistory

/// The history's pictures as inline SVG drawn here (no chart library, nothing from the network): line
/// and stacked-bar charts over runs, and a test's sparkline. Colours are the report's CSS variables, so
/// dark mode follows the page; a 480-unit-wide viewBox scaled to the page's width stays legible on a
/// phone (14-unit text is 10 px at 360 px). Every point links to its run (`#run-<uuid>`) and carries a
/// `<title>` (the run's date and value).
package enum HistoryCharts {
    /// One value of a series at a run index.
    package struct Point: Sendable {
        package var run: Int
        package var value: Double
        package var title: String
        package var href: String
        package init(run: Int, value: Double, title: String, href: String) {
            self.run = run
            self.value = value
            self.title = title
            self.href = href
        }
    }

    /// A named series drawn in a CSS colour variable (`--accent`, `--lo`, …).
    package struct Series: Sendable {
        package var name: String
        package var color: String
        package var points: [Point]
        package init(name: String, color: String, points: [Point]) {
            self.name = name
            self.color = color
            self.points = points
        }
    }

    static let width = 480.0, height = 200.0
    static let left = 66.0, right = 10.0, top = 10.0, bottom = 26.0

    /// A line chart of `series` over `runs` run indexes; `format` writes the axis labels.
    package static func line(label: String, series: [Series], runs: [String], format: (Double) -> String, floorAtZero: Bool = true) -> String {
        let values = series.flatMap { $0.points.map(\.value) }
        guard !values.isEmpty else { return empty(label) }
        var (low, high) = (floorAtZero ? min(0, values.min()!) : values.min()!, values.max()!)
        if high - low < 1e-9 { (low, high) = (low - 1, high + 1) }
        if floorAtZero, low < 0, values.min()! >= 0 { low = 0 }
        var svg = open(label) + axes(low: low, high: high, runs: runs, format: format)
        for s in series {
            let coordinates = s.points.map { (x(Double($0.run), runs.count), y($0.value, low, high)) }
            if coordinates.count > 1 {
                svg += "<polyline fill=\"none\" style=\"stroke:var(\(s.color))\" stroke-width=\"2\" points=\""
                    + coordinates.map { "\(fmt($0.0)),\(fmt($0.1))" }.joined(separator: " ") + "\"/>"
            }
            for (point, c) in zip(s.points, coordinates) {
                svg += "<a href=\"\(HTMLEscaping.escape(point.href))\"><circle cx=\"\(fmt(c.0))\" cy=\"\(fmt(c.1))\" r=\"4\" style=\"fill:var(\(s.color))\">"
                    + "<title>\(HTMLEscaping.escape(point.title))</title></circle></a>"
            }
        }
        return svg + "</svg>"
    }

    /// Stacked bars per run (the series in order, bottom up).
    package static func bars(label: String, series: [Series], runs: [String]) -> String {
        var totals = [Double](repeating: 0, count: runs.count)
        for s in series { for p in s.points where p.run < runs.count { totals[p.run] += p.value } }
        let high = max(1, totals.max() ?? 0)
        var svg = open(label) + axes(low: 0, high: high, runs: runs, format: { String(Int($0.rounded())) })
        let slot = (width - left - right) / Double(max(runs.count, 1))
        let barWidth = max(2, min(24, slot * 0.7))
        var base = [Double](repeating: 0, count: runs.count)
        for s in series {
            for p in s.points where p.run < runs.count && p.value > 0 {
                let y0 = y(base[p.run], 0, high), y1 = y(base[p.run] + p.value, 0, high)
                base[p.run] += p.value
                svg += "<a href=\"\(HTMLEscaping.escape(p.href))\"><rect x=\"\(fmt(x(Double(p.run), runs.count) - barWidth / 2))\" y=\"\(fmt(y1))\" "
                    + "width=\"\(fmt(barWidth))\" height=\"\(fmt(max(1, y0 - y1)))\" style=\"fill:var(\(s.color))\">"
                    + "<title>\(HTMLEscaping.escape(p.title))</title></rect></a>"
            }
        }
        return svg + "</svg>"
    }

    /// A test's last runs: one bar each, coloured by outcome, as tall as its duration relative to the
    /// longest (a failure is full height); titled with the run's date, outcome and duration.
    package static func sparkline(_ points: [HistoryTimelinePoint], label: String) -> String {
        let step = 5.0, w = max(step, Double(points.count) * step), h = 16.0
        let longest = points.compactMap(\.duration).max() ?? 0
        var svg = "<svg class=\"spark\" viewBox=\"0 0 \(fmt(w)) \(fmt(h))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" role=\"img\" aria-label=\"\(HTMLEscaping.escape(label))\">"
        for (i, p) in points.enumerated() {
            let failed = ["failed", "crashed", "timed-out"].contains(p.outcome)
            let share = failed || longest <= 0 ? 1 : (p.duration ?? 0) / longest
            let barHeight = max(3, h * share)
            let title = "\(dateText(p.date)) · \(p.outcome)" + (p.duration.map { String(format: " · %.3f s", $0) } ?? "")
            svg += "<rect x=\"\(fmt(Double(i) * step))\" y=\"\(fmt(h - barHeight))\" width=\"\(fmt(step - 1))\" height=\"\(fmt(barHeight))\" "
                + "style=\"fill:var(\(color(p.outcome)))\"><title>\(HTMLEscaping.escape(title))</title></rect>"
        }
        return svg + "</svg>"
    }

    static func color(_ outcome: String) -> String {
        switch outcome {
        case "passed": return "--hi"
        case "failed", "crashed", "timed-out": return "--lo"
        case "expected-failure": return "--mid"
        default: return "--na"
        }
    }

    static func open(_ label: String) -> String {
        "<svg class=\"chart\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" role=\"img\" aria-label=\"\(HTMLEscaping.escape(label))\">"
    }

    static func empty(_ label: String) -> String {
        open(label) + "<text x=\"\(fmt(width / 2))\" y=\"\(fmt(height / 2))\" text-anchor=\"middle\" class=\"axis\">no data</text></svg>"
    }

    /// Three horizontal grid lines, each labelled with its value unless the text repeats a label
    /// below it (counts from 0 to 1 round the middle to "1"; a narrow range of percentages prints one
    /// value thrice); the first and last run's dates under the x axis, the last only when it differs.
    static func axes(low: Double, high: Double, runs: [String], format: (Double) -> String) -> String {
        var svg = ""
        var labels: Set<String> = []
        for fraction in [0.0, 0.5, 1.0] {
            let value = low + (high - low) * fraction, yy = y(value, low, high)
            svg += "<line x1=\"\(fmt(left))\" x2=\"\(fmt(width - right))\" y1=\"\(fmt(yy))\" y2=\"\(fmt(yy))\" class=\"grid\"/>"
            let text = format(value)
            guard labels.insert(text).inserted else { continue }
            svg += "<text x=\"\(fmt(left - 6))\" y=\"\(fmt(yy + 4))\" text-anchor=\"end\" class=\"axis\">\(HTMLEscaping.escape(text))</text>"
        }
        if let first = runs.first {
            svg += "<text x=\"\(fmt(left))\" y=\"\(fmt(height - 6))\" class=\"axis\">\(HTMLEscaping.escape(first))</text>"
        }
        if runs.count > 1, let last = runs.last, last != runs.first {
            svg += "<text x=\"\(fmt(width - right))\" y=\"\(fmt(height - 6))\" text-anchor=\"end\" class=\"axis\">\(HTMLEscaping.escape(last))</text>"
        }
        return svg
    }

    static func x(_ index: Double, _ count: Int) -> Double {
        let plot = width - left - right
        return count <= 1 ? left + plot / 2 : left + plot * (index + 0.5) / Double(count)
    }

    static func y(_ value: Double, _ low: Double, _ high: Double) -> Double {
        top + (height - top - bottom) * (1 - (value - low) / (high - low))
    }

    static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    static func dateText(_ date: Date) -> String { UTCTimestamp.iso8601(date) }
}
