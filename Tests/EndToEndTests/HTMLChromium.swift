import Foundation
import XCTest
import TestscopeExecution

/// A page loaded by real headless Chromium (Debian package `chromium`; `.ci/run` installs it): the DOM
/// after its scripts ran, read with `xmllint --html` (libxml2-utils), and Chromium's console log.
struct Chromium {
    let dom: String
    let domFile: URL
    let log: String

    static func executable(_ names: [String], package: String) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        let found = names.lazy.compactMap { Toolchain.findInPath($0, environment: environment) }.first
        return try XCTUnwrap(found, "\(names[0]) is required for the browser tests (apt-get install \(package); .ci/run does it)")
    }

    /// Loads `page` (with an optional `#fragment`) from file:// with the network off.
    static func load(_ page: URL, fragment: String? = nil, in folder: URL, extraArguments: [String] = []) throws -> Chromium {
        let chromium = try executable(["chromium", "chromium-browser", "google-chrome"], package: "chromium")
        let profile = folder.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        let url = page.absoluteString + (fragment.map { "#" + $0 } ?? "")
        let result = try ProcessRunner.run(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
            "--enable-logging=stderr", "--v=0", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
            "--virtual-time-budget=10000",
        ] + extraArguments + ["--dump-dom", url])
        XCTAssertEqual(result.status, 0, result.stderrText)
        let domFile = folder.appendingPathComponent("dom-\(UUID().uuidString).html")
        try result.stdout.write(to: domFile)
        return Chromium(dom: result.stdoutText, domFile: domFile, log: result.stderrText)
    }

    /// A PNG screenshot of `page` in a `width`×`height` window (CSS pixels), in the `light` or `dark`
    /// theme (head.js reads `?theme=`), written to `png`; returns its size in bytes.
    @discardableResult
    static func screenshot(_ page: URL, theme: String, width: Int, height: Int, to png: URL, in folder: URL,
                           extraArguments: [String] = []) throws -> Int {
        let chromium = try executable(["chromium", "chromium-browser", "google-chrome"], package: "chromium")
        let profile = folder.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        let result = try ProcessRunner.run(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=10000",
            "--hide-scrollbars", "--window-size=\(width),\(height)", "--screenshot=\(png.path)",
        ] + extraArguments + [page.absoluteString + "?theme=\(theme)"])
        XCTAssertEqual(result.status, 0, result.stderrText)
        return (try? FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int) ?? 0
    }

    /// Layout as Chromium computes it: `page` in a `width`×`height` frame of a wrapper page (file pages may read
    /// each other with `--allow-file-access-from-files`), `expression` evaluated with `doc` as the page's
    /// document once it loaded; its string value. The report's pages stay as they are (no script added).
    static func measure(_ page: URL, fragment: String? = nil, width: Int, height: Int = 900, expression: String, in folder: URL) throws -> String {
        let wrapper = folder.appendingPathComponent("measure-\(UUID().uuidString).html")
        let src = page.absoluteString + (fragment.map { "#" + $0 } ?? "")
        try """
        <!DOCTYPE html><html><body style="margin:0">
        <iframe id="f" src="\(src)" style="border:0;width:\(width)px;height:\(height)px"></iframe>
        <pre id="out"></pre>
        <script>
        document.getElementById('f').addEventListener('load', () => {
          const doc = document.getElementById('f').contentDocument;
          let value;
          try { value = String(\(expression)); } catch (e) { value = 'error: ' + e; }
          document.getElementById('out').textContent = value;
        });
        </script></body></html>
        """.write(to: wrapper, atomically: true, encoding: .utf8)
        let loaded = try load(wrapper, in: folder, extraArguments: ["--allow-file-access-from-files"])
        return try loaded.text("//pre[@id='out']")
    }

    /// A PNG's size and the colour of one pixel, decoded by Python's zlib (8-bit RGB or RGBA, as Chromium writes).
    static func pixel(of png: URL, x: Int, y: Int) throws -> (width: Int, height: Int, rgb: [Int]) {
        let script = """
        import struct, sys, zlib
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
        pos, idat, width, height, channels = 8, b'', 0, 0, 0
        while pos < len(data):
            length, kind = struct.unpack('>I4s', data[pos:pos + 8]); body = data[pos + 8:pos + 8 + length]; pos += 12 + length
            if kind == b'IHDR':
                width, height, depth, colour = struct.unpack('>IIBB', body[:10]); assert depth == 8; channels = {2: 3, 6: 4}[colour]
            elif kind == b'IDAT': idat += body
        raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
        for r in range(int(sys.argv[3]) + 1):
            start = r * (stride + 1); kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0; b = prev[i]; c = prev[i - channels] if i >= channels else 0
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + [0, a, b, (a + b) // 2, a if pa <= pb and pa <= pc else (b if pb <= pc else c)][kind]) & 255
            prev = line
        x = int(sys.argv[2]) * channels
        print(width, height, prev[x], prev[x + 1], prev[x + 2])
        """
        let output = try XCTUnwrap(TestscopeProcess.output(of: ["python3", "-c", script, png.path, String(x), String(y)]), "python3 decodes \(png.lastPathComponent)")
        let numbers = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        XCTAssertEqual(numbers.count, 5, output)
        guard numbers.count == 5 else { return (0, 0, []) }
        return (numbers[0], numbers[1], Array(numbers[2...]))
    }

    /// No script error, blocked load or alert recorded by the page (head.js), its script ran to the
    /// end (`data-ready`), and Chromium logged no console message.
    func assertClean(file: StaticString = #filePath, line: UInt = #line) {
        let html = dom.range(of: "<html").map { String(dom[$0.lowerBound...].prefix { $0 != ">" }) } ?? ""
        XCTAssertTrue(html.contains("data-ready=\"1\""), "report.js did not finish: \(html)", file: file, line: line)
        XCTAssertFalse(html.contains("data-errors"), "the page recorded errors: \(html)", file: file, line: line)
        XCTAssertFalse(html.contains("data-alerts"), "the page called alert(): \(html)", file: file, line: line)
        let console = log.split(separator: "\n").filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }
        XCTAssertEqual(console, [], "console messages", file: file, line: line)
        XCTAssertFalse(dom.isEmpty, file: file, line: line)
    }

    /// An XPath over the DOM: `count(…)`/`string(…)` as given, a node path as its text content.
    func text(_ xpath: String) throws -> String {
        let xmllint = try Chromium.executable(["xmllint"], package: "libxml2-utils")
        let expression = xpath.hasPrefix("count(") || xpath.hasPrefix("string(") ? xpath : "string(\(xpath))"
        let result = try ProcessRunner.run(xmllint, ["--html", "--nowarning", "--xpath", expression, domFile.path])
        var text = result.stdoutText
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// The annotated source rows in the DOM, by line number.
    func sourceRows() -> [Int: (state: String, count: String, title: String)] {
        let pattern = #"<tr id="L(\d+)" class="([a-z ]*)"><td class="ln">\d+</td><td class="cnt" title="([^"]*)">([^<]*)</td>"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [:] }
        let ns = dom as NSString
        var rows: [Int: (String, String, String)] = [:]
        for match in regex.matches(in: dom, range: NSRange(location: 0, length: ns.length)) {
            rows[Int(ns.substring(with: match.range(at: 1)))!] = (ns.substring(with: match.range(at: 2)),
                                                                  ns.substring(with: match.range(at: 4)), ns.substring(with: match.range(at: 3)))
        }
        return rows
    }
}
