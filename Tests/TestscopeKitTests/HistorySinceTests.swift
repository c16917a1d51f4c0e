import Foundation
import TestscopeKit
import XCTest

/// `testscope history --since`: a whole date or instant, or a usage error — never the date at the start of
/// something else (Foundation's parser reads `2026-11-29` out of `2026-11-29T10:33` and of `2026-11-29junk`).
final class HistorySinceTests: XCTestCase {
    func testWholeDatesAndInstantsOnly() throws {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let day = try HistoryRequest.since("2026-11-29")
        XCTAssertEqual(day, utc.date(from: DateComponents(year: 2026, month: 11, day: 29)))
        XCTAssertEqual(try HistoryRequest.since("2026-11-29T10:40:00Z"), day.addingTimeInterval(10 * 3600 + 40 * 60))
        XCTAssertEqual(try HistoryRequest.since("2026-11-29T10:40:00.5Z"), day.addingTimeInterval(10 * 3600 + 40 * 60 + 0.5))
        XCTAssertEqual(try HistoryRequest.since("2026-11-29T11:40:00+01:00"), day.addingTimeInterval(10 * 3600 + 40 * 60))
        for text in ["2026-11-29T10:33", "2026-11-29 10:33:00", "2026-11-29junk", "2026-02-30", "", "yesterday", "2026-13-45"] {
            XCTAssertThrowsError(try HistoryRequest.since(text), "'\(text)' is not a date or an instant")
        }
    }
}
