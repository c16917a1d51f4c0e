import Foundation
import XCTest
@testable import TestscopeReports
import TestscopeTestSupport

final class ByteWriterTests: XCTestCase {
    /// coverage.json's percentages are written as bytes; they must read exactly as `Format.fixed` prints them.
    func testFixedDecimalsAreWhatFormatFixedPrints() {
        var values: [Double] = [0, 100, 99.999_95, 99.999_949, 50, 1e-9, 12.345_65, 33.333_333, 66.666_666_666, 0.000_05]
        for covered in 0...97 { values.append(Double(covered) / 97 * 100) }
        for value in values {
            for decimals in [0, 1, 2, 4, 8, 9] {
                var w = ByteWriter()
                w.append(fixed: value, decimals: decimals)
                XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), Format.fixed(value, decimals: decimals), "\(value), \(decimals)")
            }
        }
        XCTAssertEqual(Format.fixed(99.999_95, decimals: 4), "99.9999", "below 100 is never shown as 100")
    }

    /// JSON strings read back by Foundation's parser as the text written; integers as `String(_:)`
    /// prints them; growth past the first capacity keeps every byte.
    func testStringsIntegersAndGrowth() throws {
        let texts = ["", "plain", "quote \" backslash \\ slash /", "tab\tnewline\nreturn\r", "\u{0}\u{1}\u{1F}\u{7F}",
                     "é ✓ 𝄞", String(repeating: "long ", count: 5_000)]
        for text in texts {
            var w = ByteWriter(capacity: 16)
            w.append("["); w.append(json: text); w.append("]")
            let parsed = try JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String]
            XCTAssertEqual(parsed, [text])
        }
        var w = ByteWriter(capacity: 16)
        var expected = ""
        for value: UInt64 in [0, 9, 10, 99, 100, 12_345, 4_294_967_295, UInt64.max] {
            w.append(int: value); w.append(byte: 0x2C)
            expected += "\(value),"
        }
        w.append(string: "tail ✓")
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), expected + "tail ✓")
        w.removeAll()
        XCTAssertEqual(w.count, 0)
        XCTAssertEqual(Format.fixed(1.5, decimals: 4), "1.5000")
    }

    /// The eight-bytes-at-a-time test finds a byte that needs an escape exactly where a byte at a
    /// time does: seeded words of the bytes next to each boundary (and their high-bit twins), and
    /// seeded strings of them read back by Foundation's parser as the text written.
    func testJSONEscapesAreFoundEightBytesAtATimeAsAByteAtATime() throws {
        let near: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0x9F, 0xA0, 0xA1, 0xA2, 0xDC, 0xFF, 0x61]
        var random = Mutator.SeededGenerator(state: Mutator.seed)
        var found = 0
        for _ in 0..<200_000 {
            let bytes = (0..<8).map { _ in Int.random(in: 0..<4, using: &random) == 0 ? near.randomElement(using: &random)! : UInt8(ascii: "a") }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let expected = bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
            if expected { found += 1 }
            XCTAssertEqual(ByteWriter.anyNeedsJSONEscape(word), expected, "\(bytes)")
        }
        XCTAssertGreaterThan(found, 50_000)
        XCTAssertLessThan(found, 150_000)
        let pieces = ["a", "bcdefghij", "\"", "\\", "\n", "\t", "\r", "\u{0}", "\u{1F}", "\u{7F}", " ", "é", "✓", "𝄞", "¢", "Ü"]
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...24, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            var w = ByteWriter(capacity: 16)
            w.append("["); w.append(json: text); w.append("]")
            XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String], [text])
        }
    }

    /// Numbers are written two digits at a time after their digits are counted: every count of
    /// digits, each side of every power of ten, and seeded random values read as `String(_:)` prints them.
    func testIntegersAtEveryPowerOfTenAndRandomValues() {
        var values: [UInt64] = [0, 1, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 1
        for _ in 0...19 {
            values += [power - 1, power, power + 1]
            if power > UInt64.max / 10 { break }
            power *= 10
        }
        var generator = Mutator.SeededGenerator(state: 20261124)
        for _ in 0..<2_000 { values.append(generator.next() >> (generator.next() % 64)) }
        var w = ByteWriter(capacity: 16)
        var expected = ""
        for value in values {
            w.append(int: value); w.append(byte: 0x20)
            expected += "\(value) "
        }
        w.append(int: Int32(7)); w.append(int: UInt32.max)
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), expected + "7" + "\(UInt32.max)")
    }
}

