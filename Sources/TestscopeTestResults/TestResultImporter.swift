import Foundation
import TestscopeExecution
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads test results recorded earlier: a `swift test` console log, a Swift Testing event stream,
/// or a JUnit XML file (e.g. SwiftPM's `--xunit-output`).
package enum TestResultImporter {
    /// Logs, event streams and JUnit files together: a crash the log shows outside any XCTest test
    /// is the evidence for the Swift Testing test its event stream left in flight.
    package static func combined(logs: [URL], streams: [URL], junit: [URL], testList: TestList?) throws -> TestRunResults {
        var run = TestRunResults()
        var orphanCrashes: [CrashEvidence] = []
        for log in logs {
            let text = try read(log)
            var parser = XCTestConsoleParser(moduleForClass: testList?.moduleForClass ?? [:])
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) { parser.consume(String(line)) }
            parser.finish(signal: nil, timedOut: false)
            run.merge(parser.results)
            orphanCrashes += parser.orphanCrashes
            if let open = parser.crashOutsideTests, !parser.orphanCrashes.contains(open) { orphanCrashes.append(open) }
        }
        try mergeStreams(streams, orphanCrashes: orphanCrashes, into: &run)
        for file in junit { run.merge(try self.junit(file)) }
        return run
    }

    /// XCTest results from a console log (module names from an optional `swift test list` output).
    package static func testLog(_ url: URL, testList: TestList? = nil) throws -> [TestCaseResult] {
        let text = try read(url)
        var parser = XCTestConsoleParser(moduleForClass: testList?.moduleForClass ?? [:])
        var signal: Int?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            parser.consume(String(line))
            if let s = XCTestLine.processSignal(in: line) { signal = s }
        }
        parser.finish(signal: signal, timedOut: false)
        return parser.results
    }

    /// Swift Testing results from an event stream; tests still in flight at its end are `crashed`.
    package static func eventStream(_ url: URL) throws -> [TestCaseResult] {
        var run = TestRunResults()
        try mergeStreams([url], orphanCrashes: [], into: &run)
        return run.results
    }

    /// A run's event streams (one per test process: `run` relaunches the binary after a crash) in
    /// the order the processes ran, whatever the order given: a later stream's results of a test
    /// replace an earlier stream's (it was in flight there and ran again), as in the run itself.
    /// A test in flight at the end of a stream that no later stream reports crashed the process when
    /// a crash in the logs names it, or when it is the only one; when several are left and nothing
    /// says which, all are `crashed`, with a warning saying what else to pass.
    static func mergeStreams(_ urls: [URL], orphanCrashes: [CrashEvidence], into run: inout TestRunResults) throws {
        var streams: [(url: URL, stream: SwiftTestingEventStream)] = []
        for url in urls {
            let stream = SwiftTestingEventStream.parse(try read(url))
            guard stream.isEventStream else {
                throw TestResultsError.notAnEventStream(path: url.path, detail: stream.skipped.first.map { "line \($0.line): \($0.reason)" } ?? "no Swift Testing records")
            }
            if let warning = stream.skippedWarning(file: url.path) { run.warnings.append(warning) }
            streams.append((url, stream))
        }
        let ordered = streams.enumerated().sorted { a, b in
            (a.element.stream.wallStart ?? .distantFuture, a.offset) < (b.element.stream.wallStart ?? .distantFuture, b.offset)
        }.map(\.element)
        for (index, (url, stream)) in ordered.enumerated() {
            let later = Set(ordered[(index + 1)...].flatMap { $0.stream.functionTests.map(Self.specifier) })
            let finished = stream.results()
            let replaced = Set(finished.map(\.id))
            run.results.removeAll { $0.framework == .swiftTesting && replaced.contains($0.id) }
            run.results += finished
            let left = stream.inFlight.filter { !later.contains(Self.specifier($0)) }
            guard !left.isEmpty else { continue }
            let named = left.first { id in orphanCrashes.contains { SwiftTestingEventStream.crash($0, names: id) } }
            let culprit = named ?? (left.count == 1 ? left[0] : nil)
            if culprit == nil {
                run.warnings.append(.warning(file: url.path, "the test process died with \(left.count) tests in flight and nothing says which one crashed it, so all are reported crashed; pass the run's later event streams (swift-testing-events-2.jsonl, …) and its swift-test.log (--test-log) too"))
            }
            for id in left where culprit == nil || id == culprit {
                let evidence = orphanCrashes.first { SwiftTestingEventStream.crash($0, names: id) }
                    ?? CrashEvidence(reason: "in flight when the test process died (the event stream ends while it runs)")
                let result = stream.interruptedResult(id, outcome: .crashed, crash: evidence, duration: nil)
                run.results.removeAll { $0.framework == .swiftTesting && $0.id == result.id }
                run.results.append(result)
            }
            for id in left where culprit != nil && id != culprit {
                var result = stream.interruptedResult(id, outcome: .skipped, crash: nil, duration: nil)
                result.skipReason = "not finished: in flight when \(Self.specifier(culprit!)) crashed the test process, and not run again"
                run.results.removeAll { $0.framework == .swiftTesting && $0.id == result.id }
                run.results.append(result)
            }
        }
    }

    static func specifier(_ id: String) -> String { SwiftTestingEventStream.split(id).specifier }

    /// Results from a JUnit XML file.
    /// Entities are never expanded (libxml2 refuses loops and external entities; Foundation's parser
    /// does not resolve external ones): an entity bomb or `SYSTEM "file:///…"` is a bad input, not a read.
    package static func junit(_ url: URL) throws -> [TestCaseResult] {
        try junit(data: Data(try bytes(url)), path: url.path)
    }

    /// Results from JUnit XML in memory (`path` names it in errors).
    static func junit(data: Data, path: String) throws -> [TestCaseResult] {
        // Foundation's XMLParser traps on some invalid UTF-8 that libxml2 passes on (found by the
        // mutation tests: a lone lead byte in an element name): refused before parsing.
        if let line = invalidUTF8Line(data) {
            throw TestResultsError.notJUnit(path: path, detail: "it is not valid UTF-8, line \(line)")
        }
        let delegate = JUnitParserDelegate()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        guard parser.parse() else {
            let code = (parser.parserError as NSError?)?.code ?? 0
            throw TestResultsError.notJUnit(path: path, detail: SystemErrorText.xmlReason(code: code, line: parser.lineNumber))
        }
        guard delegate.sawRoot else { throw TestResultsError.notJUnit(path: path, detail: "no <testsuites> or <testsuite> element") }
        // Foundation's parser can stop at a truncated document without an error: the root must have ended.
        guard delegate.depth == 0 else {
            throw TestResultsError.notJUnit(path: path, detail: "the document ends before its root element is closed (truncated?)")
        }
        return delegate.results
    }

    /// The line of the first invalid UTF-8 sequence of a document that is (or says it is) UTF-8; nil
    /// when it is valid, or declares another encoding (or starts with a UTF-16 byte order mark) for libxml2 to convert.
    static func invalidUTF8Line(_ data: Data) -> Int? {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return nil }
        let prolog = String(decoding: bytes.prefix(200), as: UTF8.self).lowercased()
        if let declaration = prolog.range(of: "encoding=") {
            let value = prolog[declaration.upperBound...].dropFirst().prefix { $0 != "\"" && $0 != "'" }
            let isName = !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }
            if isName && value != "utf-8" && value != "utf8" { return nil }
        }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
            case .emptyInput: return nil
            case .error: return line
            }
        }
    }

    /// A file's bytes (a pipe such as `<(cmd)` too), or the error naming it.
    static func bytes(_ url: URL) throws -> [UInt8] {
        do { return try InputFile.read(url) } catch {
            throw TestResultsError.unreadable(path: url.path, reason: error.reason)
        }
    }

    /// A text input (log, event stream, test list), decoded as UTF-8.
    package static func read(_ url: URL) throws -> String {
        String(decoding: try bytes(url), as: UTF8.self)
    }
}

/// Collects `testcase` elements with their outcome child.
final class JUnitParserDelegate: NSObject, XMLParserDelegate {
    var results: [TestCaseResult] = []
    var sawRoot = false
    /// Elements open now (0 again once the root element has ended).
    var depth = 0
    private var current: TestCaseResult?
    private var text = ""
    private var element: (name: String, message: String?, type: String?)?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        switch name {
        case "testsuites", "testsuite":
            sawRoot = true
        case "testcase":
            let className = attributes["classname"] ?? ""
            let testName = attributes["name"] ?? ""
            let isSwiftTesting = testName.contains("(")
            let dot = className.firstIndex(of: ".")
            let module = dot.map { String(className[..<$0]) }
            let suite = dot.map { String(className[className.index(after: $0)...]) } ?? (className.isEmpty ? nil : className)
            var location: SourceLocation?
            if let file = attributes["file"], let line = attributes["line"].flatMap(Int.init) { location = SourceLocation(file: file, line: line) }
            current = TestCaseResult(
                id: isSwiftTesting && suite == nil ? "\(className).\(testName)" : "\(className)/\(testName)",
                framework: isSwiftTesting ? .swiftTesting : .xctest, module: module, suite: isSwiftTesting && dot == nil ? nil : suite,
                name: testName, outcome: .passed, duration: attributes["time"].flatMap(Double.init), location: location)
        case "failure", "error", "skipped":
            element = (name, attributes["message"], attributes["type"])
            text = ""
        case "system-out":
            text = ""
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) { text += String(decoding: CDATABlock, as: UTF8.self) }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        switch name {
        case "failure", "error":
            guard let element, var result = current else { break }
            let message = element.message ?? text.split(separator: "\n").first.map(String.init) ?? name
            let body = text.trimmingCharacters(in: .whitespacesAndNewlines)
            let details = body.isEmpty || body == message ? [] : body.split(separator: "\n").map(String.init)
            result.issues.append(TestIssue(kind: name == "failure" ? .failure : .error, message: message, details: details, location: result.location))
            result.outcome = element.type == "crash" ? .crashed : element.type == "timeout" ? .timedOut : .failed
            current = result
            self.element = nil
        case "skipped":
            current?.outcome = .skipped
            let reason = element?.message ?? text.trimmingCharacters(in: .whitespacesAndNewlines)
            current?.skipReason = reason.isEmpty ? "skipped" : reason
            element = nil
        case "system-out":
            if current != nil { current?.output = text.split(separator: "\n").map(String.init) }
        case "testcase":
            if let current { results.append(current) }
            current = nil
        default:
            break
        }
    }
}
