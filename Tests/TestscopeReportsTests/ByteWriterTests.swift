import XCTest
@testable import TestscopeReports

final class ByteWriterTests: XCTestCase {
    /// coverage.json's percentages are written as bytes; they must read exactly as `Format.fixed` prints them.
    func testFixedDecimalsAreWhatFormatFixedPrints() {
        var values: [Double] = [0, 100, 99.999_95, 99.999_949, 50, 1e-9, 12.345_65, 33.333_333, 66.666_666_666, 0.000_05]
        for covered in 0...97 { values.append(Double(covered) / 97 * 100) }
        for value in values {
            for decimals in [0, 1, 2, 4] {
                var w = ByteWriter()
                w.append(fixed: value, decimals: decimals)
                XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), Format.fixed(value, decimals: decimals), "\(value), \(decimals)")
            }
        }
        XCTAssertEqual(Format.fixed(99.999_95, decimals: 4), "99.9999", "below 100 is never shown as 100")
        XCTAssertEqual(Format.fixed(1.5, decimals: 4), "1.5000")
    }
}
