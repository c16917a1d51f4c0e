import XCTest
@testable import TestscopeReports

/// history.html's axes (issue 41): no y value printed twice, no x label twice.
final class HistoryChartsTests: XCTestCase {
    /// The axis labels of a chart, in document order.
    func labels(_ svg: String) -> [String] {
        svg.components(separatedBy: "class=\"axis\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    /// One failed test in the second of two runs: the bars' axis runs 0–1, whose middle rounds to "1".
    func testACountUpToOneLabelsEachValueOnce() {
        let failed = HistoryCharts.Series(name: "failed", color: "--lo", points: [
            HistoryCharts.Point(run: 1, value: 1, title: "failed 1", href: "#run-b")])
        let svg = HistoryCharts.bars(label: "Failing", series: [failed], runs: ["11-28 20:22:05", "11-28 20:22:41"])
        let texts = labels(svg)
        XCTAssertEqual(Set(texts).count, texts.count, "\(texts)")
        XCTAssertTrue(texts.contains("0") && texts.contains("1"), "\(texts)")
    }

    /// Two runs in one minute: the x labels carry seconds, so they differ.
    func testRunsInOneMinuteGetSeconds() {
        let first = Date(timeIntervalSince1970: 1_700_000_000), second = first.addingTimeInterval(20)
        let labels = HistoryHTMLPage.axisLabels([first, second])
        XCTAssertEqual(labels.count, 2)
        XCTAssertNotEqual(labels[0], labels[1])
        XCTAssertEqual(HistoryHTMLPage.axisLabels([first, first.addingTimeInterval(3600)]).map(\.count), [11, 11], "minutes suffice")
    }

    /// Two runs in one second (a small package's runs follow each other that fast): milliseconds.
    func testRunsInOneSecondGetMilliseconds() {
        let first = Date(timeIntervalSince1970: 1_700_000_000.125), second = first.addingTimeInterval(0.5)
        let labels = HistoryHTMLPage.axisLabels([first, second])
        XCTAssertEqual(labels, ["11-14 22:13:20.125", "11-14 22:13:20.625"])
    }
}
