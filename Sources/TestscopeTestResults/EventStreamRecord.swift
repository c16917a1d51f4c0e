import Foundation

/// One line of a Swift Testing event stream, checked before anything in it is trusted: a record the
/// reader can use, one it ignores on purpose (kinds a newer Swift Testing may add, as the ABI asks),
/// or a line it skips with the reason (not JSON, too long, too deep, a field missing or of the wrong
/// type, an instant that no clock gives).
enum EventStreamLine {
    /// `caseIDs`: a parameterized test's cases in the order of its arguments (`_testCases`, experimental fields).
    case test(id: String, name: String, displayName: String?, isSuite: Bool, location: SourceLocation?, caseIDs: [String])
    case event(EventStreamEvent)
    case ignored
    case invalid(String)

    /// 16 MiB: a record with an attachment's bytes inline (`_bytes`, experimental fields) can be large,
    /// but a line longer than this is not something Swift Testing writes for a result we read.
    static let maximumLineBytes = 16 << 20
    /// Records nest about 5 deep (`payload.issue.sourceLocation`); Foundation refuses 512.
    static let maximumDepth = 32
    /// `absolute` is seconds of a monotonic clock since boot: a machine up for more than 30 years is not one.
    static let maximumAbsolute = 1e9
    /// `since1970`: before 1970 or after 2200 is no clock's reading.
    static let since1970Range = 0.0...7_258_118_400.0

    init(_ line: Substring) {
        let bytes = line.utf8
        guard bytes.count <= Self.maximumLineBytes else {
            self = .invalid("a line of \(bytes.count) bytes (more than \(Self.maximumLineBytes >> 20) MiB)")
            return
        }
        if let depth = Self.depthBeyondLimit(bytes) {
            self = .invalid("JSON nested more than \(depth) levels deep")
            return
        }
        guard let any = try? JSONSerialization.jsonObject(with: Data(bytes)) else { self = .invalid("not JSON"); return }
        guard let object = any as? [String: Any] else { self = .invalid("not a JSON object"); return }
        guard let kind = object["kind"] as? String else { self = .invalid("no \"kind\""); return }
        guard kind == "test" || kind == "event" else { self = .ignored; return }
        guard let payload = object["payload"] as? [String: Any] else { self = .invalid("\(kind == "test" ? "a test" : "an event") record without a \"payload\" object"); return }
        if kind == "test" {
            guard let id = payload["id"] as? String, let name = payload["name"] as? String else {
                self = .invalid("a test record without a string \"id\" and \"name\"")
                return
            }
            let caseIDs = ((payload["_testCases"] as? [Any]) ?? []).compactMap { ($0 as? [String: Any])?["id"] as? String }
            self = .test(id: id, name: name, displayName: payload["displayName"] as? String,
                         isSuite: (payload["kind"] as? String) == "suite", location: Self.location(payload["sourceLocation"]),
                         caseIDs: caseIDs)
            return
        }
        switch EventStreamEvent.decode(payload) {
        case let .success(event): self = .event(event)
        case let .failure(problem): self = .invalid(problem.reason)
        }
    }

    /// The first nesting depth past `maximumDepth` outside strings, or nil: checked before parsing so
    /// that no parser recurses on a hostile line.
    static func depthBeyondLimit(_ bytes: Substring.UTF8View) -> Int? {
        var depth = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumDepth { return maximumDepth }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }

    /// A whole, positive number up to `limit` (JSON numbers may be 1e300, -5 or 2.5).
    static func count(_ value: Any?, limit: Double = Double(Int32.max)) -> Int? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double >= 0, double <= limit, double == double.rounded() else { return nil }
        return Int(double)
    }

    static func location(_ value: Any?) -> SourceLocation? {
        guard let object = value as? [String: Any], let line = count(object["line"]) else { return nil }
        let file = (object["filePath"] as? String) ?? (object["_filePath"] as? String) ?? (object["fileID"] as? String) ?? "<unknown>"
        return SourceLocation(file: file, line: line, column: count(object["column"]))
    }
}

/// A problem with one record, for `Result`.
struct EventStreamProblem: Error {
    var reason: String
}

/// An `event` record's fields that the reader uses, validated.
struct EventStreamEvent {
    var kind: String
    /// Seconds on Swift Testing's monotonic clock (durations), when the record has a sane one.
    var absolute: Double?
    /// The wall-clock moment, when sane.
    var date: Date?
    var testID: String?
    var caseID: String?
    var texts: [String]
    var issue: [String: Any]?

    static func decode(_ p: [String: Any]) -> Result<EventStreamEvent, EventStreamProblem> {
        guard let kind = p["kind"] as? String else { return .failure(EventStreamProblem(reason: "an event without a \"kind\"")) }
        var event = EventStreamEvent(kind: kind, texts: [])
        if let instant = p["instant"] {
            guard let instant = instant as? [String: Any],
                  let absolute = (instant["absolute"] as? NSNumber)?.doubleValue,
                  absolute.isFinite, absolute >= 0, absolute <= EventStreamLine.maximumAbsolute else {
                return .failure(EventStreamProblem(reason: "\(kind) at an impossible instant (absolute seconds must be 0…1e9)"))
            }
            event.absolute = absolute
            if let since = (instant["since1970"] as? NSNumber)?.doubleValue {
                guard since.isFinite, EventStreamLine.since1970Range.contains(since) else {
                    return .failure(EventStreamProblem(reason: "\(kind) at an impossible instant (since1970 must be between 1970 and 2200)"))
                }
                event.date = Date(timeIntervalSince1970: since)
            }
        }
        if let testID = p["testID"] {
            guard let testID = testID as? String else { return .failure(EventStreamProblem(reason: "\(kind) with a \"testID\" that is not a string")) }
            event.testID = testID
        }
        event.caseID = (p["_testCase"] as? [String: Any])?["id"] as? String
        event.texts = ((p["messages"] as? [Any]) ?? []).compactMap { ($0 as? [String: Any])?["text"] as? String }
        event.issue = p["issue"] as? [String: Any]
        if kind == "issueRecorded", event.issue == nil {
            return .failure(EventStreamProblem(reason: "issueRecorded without an \"issue\" object"))
        }
        return .success(event)
    }
}
