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

    /// Marks no escaping changes and no view model value contains (control characters).
    static let titleMark = "\u{1}testscope-page-title\u{1}"
    static let bodyMark = "\u{1}testscope-page-body\u{1}"

    /// The frame of `render(title, body)`, or nil when the frame would not give its bytes.
    static func make(_ render: (String, String) throws -> [UInt8]) throws -> HTMLPageFrame? {
        let framed = try render(titleMark, bodyMark)
        let title = Array(titleMark.utf8), body = Array(bodyMark.utf8)
        var parts: [[UInt8]] = []
        var holes: [Hole] = []
        var start = 0, i = 0
        scan: while i < framed.count {
            if framed[i] == 0x01 {
                for (mark, hole) in [(title, Hole.title), (body, .body)] where framed[i...].starts(with: mark) {
                    parts.append(Array(framed[start..<i]))
                    holes.append(hole)
                    i += mark.count
                    start = i
                    continue scan
                }
            }
            i += 1
        }
        parts.append(Array(framed[start...]))
        let frame = HTMLPageFrame(parts: parts, holes: holes)
        for (probeTitle, probeBody) in [("a<b>&'\"c · d", "<p class=\"x\">body &amp; more</p>"), ("", "")] {
            var writer = ByteWriter()
            frame.write(title: probeTitle, body: Array(probeBody.utf8)[...], to: &writer)
            guard writer.withBytes({ Array($0) }) == (try render(probeTitle, probeBody)) else { return nil }
        }
        return frame
    }

    /// The page: the title escaped, the body as it is.
    func write(title: String, body: ArraySlice<UInt8>, to out: inout ByteWriter) {
        for (k, hole) in holes.enumerated() {
            parts[k].withUnsafeBufferPointer { out.append($0) }
            switch hole {
            case .title: HTMLEscaping.appendEscaped(title.utf8, to: &out)
            case .body: body.withUnsafeBufferPointer { out.append($0) }
            }
        }
        parts[parts.count - 1].withUnsafeBufferPointer { out.append($0) }
    }

    /// The page written to `writer`, the body's marks replaced by their rows (`splices`).
    func write(title: String, body: [UInt8], splices: [(mark: [UInt8], rows: [UInt8])], to writer: AtomicFileWriter) throws {
        for (k, hole) in holes.enumerated() {
            try writer.write(bytes: parts[k])
            switch hole {
            case .title:
                var escaped: [UInt8] = []
                HTMLEscaping.appendEscaped(title.utf8, to: &escaped)
                try writer.write(bytes: escaped)
            case .body:
                try Self.writeSpliced(body[...], splices: splices, to: writer)
            }
        }
        try writer.write(bytes: parts[parts.count - 1])
    }

    /// `bytes` with each mark replaced by its rows. A mark is control characters that no escaped
    /// value contains: each one is where a template placed the rows. Found on the bytes
    /// (Foundation's `components(separatedBy:)` took a third of the report's time).
    static func writeSpliced(_ bytes: ArraySlice<UInt8>, splices: [(mark: [UInt8], rows: [UInt8])], to writer: AtomicFileWriter) throws {
        var start = bytes.startIndex, i = bytes.startIndex
        scan: while i < bytes.endIndex {
            if bytes[i] == 0x01 {
                for (mark, rows) in splices where bytes[i...].starts(with: mark) {
                    try writer.write(bytes: bytes[start..<i])
                    try writer.write(bytes: rows)
                    i += mark.count
                    start = i
                    continue scan
                }
            }
            i += 1
        }
        try writer.write(bytes: bytes[start...])
    }
}
