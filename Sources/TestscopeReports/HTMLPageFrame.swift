import TestscopeExecution

/// The layout of every file page, rendered once per report around two holes, the title and the
/// body, instead of once per page: rendering `layout.mustache` per page, and turning the page into
/// a `String` and back into bytes, were 110 M of the HTML report's 3,555 M instructions at 400 files.
///
/// The frame is used only when it gives the bytes a render gives: `make` checks it against two real
/// renders with titles and bodies that need escaping, so a user's layout that treats the title or
/// the body other than as one plain value each (a section, a second use, no escaping) renders per page.
struct HTMLPageFrame: Sendable {
    enum Hole: Sendable { case title, body }

    /// The layout's bytes between the holes: `parts.count == holes.count + 1`.
    let parts: [[UInt8]]
    let holes: [Hole]

    static let titleMark = mark("page-title")
    static let bodyMark = mark("page-body")

    /// A mark for a hole in rendered bytes: control characters (which no escaping changes) around a
    /// name and a number drawn once per process, so that no value a page shows (a path, a target, a
    /// test's failure message) can contain one and be taken for it.
    static func mark(_ name: String) -> String { "\u{1}testscope-\(name)-\(markNonce)\u{1}" }
    private static let markNonce = String(UInt64.random(in: 0 ... .max), radix: 16)

    /// The frame of `render(title, body)`, or nil when the frame would not give its bytes.
    static func make(_ render: (String, String) throws -> [UInt8]) throws -> HTMLPageFrame? {
        var parts: [[UInt8]] = []
        var holes: [Hole] = []
        scan(try render(titleMark, bodyMark)[...], marks: [Array(titleMark.utf8), Array(bodyMark.utf8)]) { text, mark in
            parts.append(Array(text))
            if let mark { holes.append(mark == 0 ? .title : .body) }
        }
        let frame = HTMLPageFrame(parts: parts, holes: holes)
        // Checked through the same `write` the pages are written with.
        for (probeTitle, probeBody) in [("a<b>&'\"c · d", "<p class=\"x\">body &amp; more</p>"), ("", "")] {
            var bytes: [UInt8] = []
            frame.write(title: probeTitle, body: Array(probeBody.utf8)[...]) { bytes.append(contentsOf: $0) }
            guard bytes == (try render(probeTitle, probeBody)) else { return nil }
        }
        return frame
    }

    /// The page, a piece at a time: the frame's parts, the title escaped, the body as it is.
    func write(title: String, body: ArraySlice<UInt8>, _ emit: (ArraySlice<UInt8>) throws -> Void) rethrows {
        for (k, hole) in holes.enumerated() {
            try emit(parts[k][...])
            switch hole {
            case .title:
                var escaped: [UInt8] = []
                HTMLEscaping.appendEscaped(title.utf8, to: &escaped)
                try emit(escaped[...])
            case .body:
                try emit(body)
            }
        }
        try emit(parts[parts.count - 1][...])
    }

    /// `bytes` written with each mark replaced by its rows: each mark (`mark(_:)`) is where a
    /// template placed the rows.
    static func writeSpliced(_ bytes: ArraySlice<UInt8>, splices: [(mark: [UInt8], rows: WrittenBytes)], to writer: AtomicFileWriter) throws {
        try scan(bytes, marks: splices.map(\.mark)) { text, mark in
            try writer.write(bytes: text)
            if let mark { try splices[mark].rows.withBytes { try writer.write(bytes: $0) } }
        }
    }

    /// `bytes` cut at each occurrence of a mark: `body` gets each run of text and the index of the
    /// mark after it (nil after the last run). Found on the bytes (Foundation's
    /// `components(separatedBy:)` took a third of the report's time).
    static func scan(_ bytes: ArraySlice<UInt8>, marks: [[UInt8]], _ body: (ArraySlice<UInt8>, Int?) throws -> Void) rethrows {
        var start = bytes.startIndex, i = bytes.startIndex
        scan: while i < bytes.endIndex {
            if bytes[i] == 0x01 {
                for (k, mark) in marks.enumerated() where bytes[i...].starts(with: mark) {
                    try body(bytes[start..<i], k)
                    i += mark.count
                    start = i
                    continue scan
                }
            }
            i += 1
        }
        try body(bytes[start...], nil)
    }
}
