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

    /// A PNG of `page` at `width`×`height` CSS pixels (network off), in the light or the dark scheme; returns its size in bytes.
    @discardableResult
    static func screenshot(_ page: URL, to png: URL, width: Int, height: Int, dark: Bool = false, in folder: URL) throws -> Int {
        let chromium = try executable(["chromium", "chromium-browser", "google-chrome"], package: "chromium")
        let profile = folder.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        let result = try ProcessRunner.run(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)", "--hide-scrollbars",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--window-size=\(width),\(height)",
        ] + (dark ? ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] : []) + ["--screenshot=\(png.path)", page.absoluteString])
        XCTAssertEqual(result.status, 0, result.stderrText)
        return (try? FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int) ?? 0
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
