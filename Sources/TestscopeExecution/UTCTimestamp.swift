import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// UTC timestamps formatted with the C library: Foundation's date formatting loads calendar and
/// ICU data (about 5 MB of memory) for what is a fixed format here.
public enum UTCTimestamp {
    /// `2026-11-21T10:07:51Z` (ISO 8601, whole seconds).
    public static func iso8601(_ date: Date) -> String { format(date) + "Z" }

    /// `2026-11-21T10:07:51.250Z` (ISO 8601 with milliseconds): when a test started.
    public static func iso8601Milliseconds(_ date: Date) -> String {
        let millis = Int((date.timeIntervalSince1970 - date.timeIntervalSince1970.rounded(.down)) * 1000)
        let digits = String(min(999, max(0, millis)))
        return format(date) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// `2026-11-21T10:07:51` (no zone; JUnit's `timestamp`).
    public static func withoutZone(_ date: Date) -> String { format(date) }

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
