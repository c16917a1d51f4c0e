import Foundation
import TestscopeExecution
import XCTest

/// The C-library timestamp agrees with Foundation's formatters (which cost 5 MB to load).
final class UTCTimestampTests: XCTestCase {
    func testMatchesFoundationsFormatters() {
        let iso = ISO8601DateFormatter()
        let plain = DateFormatter()
        plain.locale = Locale(identifier: "en_US_POSIX")
        plain.timeZone = TimeZone(identifier: "UTC")
        plain.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 951_782_400.999), // 2000-02-29
                     Date(timeIntervalSince1970: 4_102_444_799.5), Date()]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 { dates.append(Date(timeIntervalSince1970: Double(generator.next() % 4_000_000_000))) }
        for date in dates {
            XCTAssertEqual(UTCTimestamp.iso8601(date), iso.string(from: date), "\(date.timeIntervalSince1970)")
            XCTAssertEqual(UTCTimestamp.withoutZone(date), plain.string(from: date), "\(date.timeIntervalSince1970)")
            // parse reads back what iso8601 wrote, to the whole second.
            XCTAssertEqual(UTCTimestamp.parse(UTCTimestamp.iso8601(date))?.timeIntervalSince1970, date.timeIntervalSince1970.rounded(.down))
        }
        XCTAssertNil(UTCTimestamp.parse("2026-11-21T10:07:51"), "no zone")
        XCTAssertNil(UTCTimestamp.parse("yesterday"))
    }
}
