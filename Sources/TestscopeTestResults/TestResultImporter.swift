import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads test results recorded earlier: a `swift test` console log, a Swift Testing event stream,
/// or a JUnit XML file (e.g. SwiftPM's `--xunit-output`).
public enum TestResultImporter {
    /// Logs, event streams and JUnit files together: a crash the log shows outside any XCTest test
    /// is the evidence for the Swift Testing test its event stream left in flight.
    public static func combined(logs: [URL], streams: [URL], junit: [URL], testList: TestList?) throws -> TestRunResults {
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
    public static func testLog(_ url: URL, testList: TestList? = nil) throws -> [TestCaseResult] {
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
    public static func eventStream(_ url: URL) throws -> [TestCaseResult] {
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
    public static func junit(_ url: URL) throws -> [TestCaseResult] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestResultsError.unreadable(path: url.path, reason: FileManager.default.fileExists(atPath: url.path) ? "not readable" : "no such file")
        }
        let delegate = JUnitParserDelegate()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else {
            throw TestResultsError.notJUnit(path: url.path, detail: parser.parserError?.localizedDescription ?? "malformed XML")
        }
        guard delegate.sawRoot else { throw TestResultsError.notJUnit(path: url.path, detail: "no <testsuites> or <testsuite> element") }
        return delegate.results
    }

    static func read(_ url: URL) throws -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestResultsError.unreadable(path: url.path, reason: FileManager.default.fileExists(atPath: url.path) ? "not readable" : "no such file")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Collects `testcase` elements with their outcome child.
final class JUnitParserDelegate: NSObject, XMLParserDelegate {
    var results: [TestCaseResult] = []
    var sawRoot = false
    private var current: TestCaseResult?
    private var text = ""
    private var element: (name: String, message: String?, type: String?)?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
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
