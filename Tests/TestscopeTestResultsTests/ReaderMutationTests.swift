import Foundation
import TestscopeTestSupport
@testable import TestscopeTestResults
import XCTest

/// Seeded mutations of recorded `swift test` logs and JUnit files through the XCTest console parser and
/// the JUnit reader: a result or a `TestResultsError`, never a trap or a hang.
final class ReaderMutationTests: XCTestCase {
    func testSeededMutationsOfXCTestLogsNeverCrash() throws {
        let corpus = try ["Crashy", "Shapes"].map { (name: "\($0)/swift-test.log", bytes: Array(try RecordedLogs.text($0, "swift-test.log").utf8)) }
        let tokens = ["Test Case '", "Test Suite '", "' started at ", "' passed (", "' failed (", " error: ", ": Fatal error: ",
                      "\n", "Exited with unexpected signal code 11", "measured [Time, seconds] average: ", "values: [",
                      "[", "]", "'", ":", " : ", " - ", "\u{1B}[31m", "\u{1B}]"] + Mutator.edgeNumbers
        var results = 0
        let (inputs, seconds) = Mutator.run(corpus, iterations: Mutator.iterations(default: 150), tokens: tokens) { _, bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            var parser = XCTestConsoleParser(moduleForClass: [:])
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                parser.consume(String(line))
                _ = XCTestLine.processSignal(in: line)
            }
            parser.finish(signal: nil, timedOut: false)
            results += parser.results.count
            return true
        }
        XCTAssertGreaterThan(results, 0)
        XCTAssertLessThan(seconds, 60 * Double(inputs) / 300)
    }

    func testSeededMutationsOfJUnitFilesNeverCrash() throws {
        let corpus = try ["Crashy/xunit.xml", "Crashy/xunit-swift-testing.xml", "Shapes/xunit.xml"].map { path -> (name: String, bytes: [UInt8]) in
            let parts = path.split(separator: "/").map(String.init)
            return (path, Array(try RecordedLogs.text(parts[0], parts[1]).utf8))
        }
        let tokens = ["<", ">", "</testcase>", "<testcase name=\"x\">", "<failure message=\"m\">", "]]>", "<![CDATA[", "&amp;", "&#0;",
                      "&lol;", "<!DOCTYPE t [<!ENTITY lol \"&lol;\">]>", "<!DOCTYPE t [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>",
                      "time=\"1e308\"", "line=\"-1\"", "\"", "\u{0}"] + Mutator.edgeNumbers
        var read = 0, refused = 0
        let (inputs, seconds) = Mutator.run(corpus, iterations: Mutator.iterations(default: 150), tokens: tokens) { _, bytes in
            do {
                read += try TestResultImporter.junit(data: Data(bytes), path: "mutated.xml").count
            } catch is TestResultsError {
                refused += 1
            } catch {
                return false
            }
            return true
        }
        XCTAssertGreaterThan(read, 0)
        XCTAssertGreaterThan(refused, 0)
        XCTAssertLessThan(seconds, 60 * Double(inputs) / 300)
    }

    /// Found by the JUnit mutations: invalid UTF-8 in an element name or attribute made Foundation's
    /// XMLParser trap (signal 4) inside its start-element callback; it is refused before parsing.
    func testInvalidUTF8IsRefusedBeforeFoundationParsesIt() throws {
        let xml = Array(try RecordedLogs.text("Crashy", "xunit.xml").utf8)
        let at = try XCTUnwrap(xml.indices.first { xml[$0...].starts(with: Array("<testcase".utf8)) })
        for bad: [UInt8] in [[0xF1], [0xC6], [0x90]] {
            var bytes = xml
            bytes.replaceSubrange((at + 3)..<(at + 4), with: bad)
            XCTAssertThrowsError(try TestResultImporter.junit(data: Data(bytes), path: "bad.xml")) { error in
                guard case let TestResultsError.notJUnit(_, detail) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(detail.hasPrefix("it is not valid UTF-8, line "), detail)
            }
        }
        // A declared encoding other than UTF-8 is left to libxml2 to convert.
        let latin1 = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><testsuites><testsuite name="caf"#.utf8) + [0xE9]
            + Array(#""><testcase classname="A" name="t"/></testsuite></testsuites>"#.utf8)
        XCTAssertEqual(try TestResultImporter.junit(data: Data(latin1), path: "latin1.xml").count, 1)
    }
}
