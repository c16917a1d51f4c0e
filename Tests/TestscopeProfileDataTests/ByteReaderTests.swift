@testable import TestscopeProfileData
import XCTest

/// The primitives: bounds-checked reads, LEB128, MD5 (RFC 1321 vectors), zlib, names chunks.
final class ByteReaderTests: XCTestCase {
    func testLittleEndianReadsAndBounds() throws {
        var reader = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09])
        XCTAssertEqual(try reader.u8(), 1)
        XCTAssertEqual(try reader.u16(), 0x0302)
        XCTAssertEqual(try reader.u32(), 0x0706_0504)
        XCTAssertThrowsError(try reader.u64()) { error in
            guard case ProfileDataError.truncated = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(reader.offset, 7, "a failed read does not move the cursor")
        XCTAssertThrowsError(try reader.bytes(UInt64.max))
        XCTAssertThrowsError(try reader.skip(-1))
        XCTAssertThrowsError(try ByteReader([1, 2], start: 1, end: 3))
    }

    func testULEB128() throws {
        var reader = ByteReader([0xe5, 0x8e, 0x26, 0x80, 0x00, 0x7f])
        XCTAssertEqual(try reader.uleb128(), 624_485)
        XCTAssertEqual(try reader.uleb128(), 0, "padded zero")
        XCTAssertEqual(try reader.uleb128(), 127)
        var max = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        XCTAssertEqual(try max.uleb128(), UInt64.max)
        var overflow = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02])
        XCTAssertThrowsError(try overflow.uleb128())
        var cut = ByteReader([0x80, 0x80])
        XCTAssertThrowsError(try cut.uleb128())
        var endless = ByteReader([UInt8](repeating: 0x80, count: 10_000))
        XCTAssertThrowsError(try endless.uleb128())
    }

    func testMD5AgainstRFC1321() {
        let vectors: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890",
             "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (message, digest) in vectors {
            XCTAssertEqual(MD5.hex(Array(message.utf8)), digest, message)
        }
        // Around the block and padding boundaries (55, 56, 63, 64, 65 bytes), against values from
        // Python's hashlib (`hashlib.md5(b"a" * n).hexdigest()`).
        let lengths: [(Int, String)] = [
            (55, "ef1772b6dff9a122358552954ad0df65"), (56, "3b0c8ac703f828b04c6c197006d17218"),
            (63, "b06521f39153d618550606be297466d5"), (64, "014842d480b571495a4a0363793f7367"),
            (65, "c743a45e0d2e6a95cb859adae0248435"), (128, "e510683b3f5ffe4093d021808bc6ff70"),
        ]
        for (n, digest) in lengths {
            XCTAssertEqual(MD5.hex([UInt8](repeating: UInt8(ascii: "a"), count: n)), digest, "\(n) bytes")
        }
    }

    /// The NameRef observed in the profraw, the profdata and the covfun of Shapes (reference §0.4).
    func testNameRefOfAnObservedName() {
        XCTAssertEqual(MD5.nameRef(of: "$s6Shapes8DescribeO5label3forSSAA5Shape_p_tFZ"), 0x82c7_0154_a8a6_b4f4)
    }

    func testZlibRoundTripAndRefusals() throws {
        // zlib.compress(b"hello hello hello") from Python's zlib.
        let compressed: [UInt8] = [0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x90, 0x00, 0x3a, 0x2e, 0x06, 0x7d]
        XCTAssertEqual(try Zlib.uncompress(compressed, expectedSize: 17), Array("hello hello hello".utf8))
        XCTAssertThrowsError(try Zlib.uncompress(compressed, expectedSize: 16), "too small")
        XCTAssertThrowsError(try Zlib.uncompress(compressed, expectedSize: 18), "announced size must match")
        XCTAssertThrowsError(try Zlib.uncompress(compressed, expectedSize: 1 << 40), "absurd size refused")
        XCTAssertThrowsError(try Zlib.uncompress([0x78, 0x9c, 0xff], expectedSize: 5))
        XCTAssertThrowsError(try Zlib.uncompress([], expectedSize: 5))
    }

    func testNamesChunksRawCompressedAndPadding() throws {
        // A raw chunk "a\u{1}bc", two zero padding bytes, then a compressed chunk "hello hello hello".
        let compressed: [UInt8] = [0x78, 0x9c, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x90, 0x00, 0x3a, 0x2e, 0x06, 0x7d]
        let bytes: [UInt8] = [4, 0, 0x61, 0x01, 0x62, 0x63, 0, 0, 17, UInt8(compressed.count)] + compressed
        XCTAssertEqual(try ProfileNames.decode(bytes), ["a", "bc", "hello hello hello"])
        XCTAssertThrowsError(try ProfileNames.decode([9, 0, 0x61]))
        // A chunk announcing more than zlib can inflate from its bytes is refused.
        XCTAssertThrowsError(try ProfileNames.decode([4, 0, 0x61, 0x01, 0x62, 0x63, 0xFF, 0xFF, 0x7F, 2, 0x78, 0x9c]))
        // Both chunks in one buffer, the names' spans inside it.
        let list = try ProfileNames.payload(bytes, context: "names")
        XCTAssertEqual(list.bytes, Array("a\u{1}bchello hello hello".utf8))
        XCTAssertEqual(list.spans, [0..<1, 2..<4, 4..<21])
        // Many chunks (inflated on every core, each into its own part of the buffer): the names in
        // chunk order, a name never spanning two chunks; one bad chunk among them fails the whole.
        let many = (0..<300).flatMap { k in k % 3 == 0 ? bytes : [3, 0, 0x78, 0x01, 0x79] }
        let expected = (0..<300).flatMap { k in k % 3 == 0 ? ["a", "bc", "hello hello hello"] : ["x", "y"] }
        XCTAssertEqual(try ProfileNames.decode(many), expected)
        var bad = many
        bad[bytes.count + 10 + 10 + 8] ^= 0xFF  // inside the deflate stream of the second copy of `bytes` (after 2 raw chunks)
        XCTAssertThrowsError(try ProfileNames.decode(bad))
        XCTAssertThrowsError(try ProfileNames.decode([4, 0, 0x61, 0x01, 0x62, 0x63, 0xFF, 0xFF, 0x7F, 2, 0x78, 0x9c]))
    }
}
