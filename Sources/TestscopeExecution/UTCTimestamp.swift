import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTC timestamps formatted with the C library: Foundation's date formatting loads calendar and
/// ICU data (about 5 MB of memory) for what is a fixed format here.
package enum UTCTimestamp {
    /// `2026-11-21T10:07:51Z` (ISO 8601, whole seconds).
    package static func iso8601(_ date: Date) -> String { format(date) + "Z" }

    /// `2026-11-21T10:07:51.250Z` (ISO 8601 with milliseconds): when a test started.
    package static func iso8601Milliseconds(_ date: Date) -> String {
        let millis = Int((date.timeIntervalSince1970 - date.timeIntervalSince1970.rounded(.down)) * 1000)
        let digits = String(min(999, max(0, millis)))
        return format(date) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// `2026-11-21T10:07:51` (no zone; JUnit's `timestamp`).
    package static func withoutZone(_ date: Date) -> String { format(date) }

    /// The date of an `iso8601` string (`2026-11-21T10:07:51Z`), nil for anything else.
    package static func parse(_ text: String) -> Date? {
        var parts = tm()
        let fields = text.utf8.split(whereSeparator: { $0 == 0x2D || $0 == 0x54 || $0 == 0x3A || $0 == 0x5A }).map { Int32(Substring($0)) }
        guard text.hasSuffix("Z"), fields.count == 6, let year = fields[0], let month = fields[1], let day = fields[2],
              let hour = fields[3], let minute = fields[4], let second = fields[5] else { return nil }
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
    }
}
