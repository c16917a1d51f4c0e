import Foundation
@testable import TestscopeCoverage
import TestscopeExecution
import XCTest

/// `swift-demangle`'s output arrives in pipe-sized pieces that cut lines anywhere; the splitter
/// hands over the same lines however the stream is cut.
final class LineSplitterTests: XCTestCase {
    func testTheSameLinesWhereverThePiecesEnd() {
        let lines = (0..<300).map { "static Synth.Unit\($0).f(_: Swift.Int) -> [Swift.String] \(String(repeating: "é", count: $0 % 7))" } + ["", "last"]
        let stream = Data(lines.joined(separator: "\n").utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let received = Locked<[String]>([])
            let splitter = LineSplitter { line in received.withLock { $0.append(String(decoding: line, as: UTF8.self)) } }
            var offset = 0
            while offset < stream.count {
                let size = Int(generator.next() % 97) + 1
                splitter.feed(stream.subdata(in: offset..<min(stream.count, offset + size)))
                offset += size
            }
            splitter.end()
            XCTAssertEqual(received.withLock { $0 }, lines)
        }
    }

    func testATrailingNewlineAddsNoEmptyLine() {
        let received = Locked<[String]>([])
        let splitter = LineSplitter { line in received.withLock { $0.append(String(decoding: line, as: UTF8.self)) } }
        splitter.feed(Data("a\nb\n".utf8))
        splitter.end()
        XCTAssertEqual(received.withLock { $0 }, ["a", "b"])
    }
}
