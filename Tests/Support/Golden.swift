import Foundation
import XCTest

/// Golden files recorded in place: a missing golden fails; `RECORD_GOLDENS=1` rewrites them.
package struct Golden: Sendable {
    package let directory: URL

    /// Goldens in the `Goldens` folder beside the calling test file.
    package init(besideTestFile path: String = #filePath) {
        directory = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("Goldens")
    }

    package func assertMatches(_ actual: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("missing golden \(name); record it with RECORD_GOLDENS=1 swift test", file: file, line: line)
            return
        }
        if expected != actual {
            let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
            let place = first.map { "line \($0.offset + 1): expected «\($0.element.0)» got «\($0.element.1)»" }
                ?? "lengths differ (\(a.count) vs \(b.count) lines)"
            XCTFail("\(name) differs from its golden at \(place); if intended, re-record with RECORD_GOLDENS=1", file: file, line: line)
        }
    }
}
