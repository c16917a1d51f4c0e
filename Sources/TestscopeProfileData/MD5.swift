/// MD5 (RFC 1321), only for llvm's keys: NameRef and FilenamesRef are its low 64 bits, read
/// little-endian. Own implementation so the module needs no crypto package.
package enum MD5 {
    /// The 16-byte digest of `message`.
    package static func digest(_ message: [UInt8]) -> [UInt8] {
        let state = message.withUnsafeBytes { words(of: $0) }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for word in [state.0, state.1, state.2, state.3] {
            for index in 0..<4 { out.append(UInt8(truncatingIfNeeded: word >> UInt32(8 * index))) }
        }
        return out
    }

    /// The digest as its four state words. Whole blocks are read in place and only the padded tail
    /// is copied: a names section hashes tens of thousands of short names, and copying each one
    /// first cost as much as hashing it.
    static func words(of message: UnsafeRawBufferPointer) -> (UInt32, UInt32, UInt32, UInt32) {
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        let whole = message.count / 64 * 64
        var block = 0
        while block < whole {
            compress(&state, UnsafeRawBufferPointer(rebasing: message[block..<(block + 64)]))
            block += 64
        }
        // The tail, 0x80, zeros up to 56 mod 64, and the bit length modulo 2^64 (the RFC's wrapping).
        // Copied and zeroed a block at a time: byte loops over a 128-byte tail were 300 instructions
        // a name, as much as half a block's compression (callgrind, 35,000 names at 400 files).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
            let rest = message.count - whole
            let tailLength = rest + 1 + 8 <= 64 ? 64 : 128
            let raw = UnsafeMutableRawBufferPointer(tail)
            raw.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: tailLength)
            if rest > 0 { raw.baseAddress!.copyMemory(from: message.baseAddress! + whole, byteCount: rest) }
            raw[rest] = 0x80
            let bitLength = UInt64(truncatingIfNeeded: message.count) &* 8
            raw.storeBytes(of: bitLength.littleEndian, toByteOffset: tailLength - 8, as: UInt64.self)
            let t = UnsafeRawBufferPointer(raw)
            compress(&state, UnsafeRawBufferPointer(rebasing: t[0..<64]))
            if tailLength == 128 { compress(&state, UnsafeRawBufferPointer(rebasing: t[64..<128])) }
        }
        return state
    }

    /// One 64-byte block (RFC 1321 §3.4), unrolled: constants and rotations are literals, the
    /// message words locals. The table-driven loop it replaces was 5 % of a text report's
    /// instructions (callgrind, 400 files: 27,600 names hashed).
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32), _ p: UnsafeRawBufferPointer) {
        func word(_ index: Int) -> UInt32 { UInt32(littleEndian: p.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)) }
        let m0 = word(0), m1 = word(1), m2 = word(2), m3 = word(3), m4 = word(4), m5 = word(5), m6 = word(6), m7 = word(7)
        let m8 = word(8), m9 = word(9), m10 = word(10), m11 = word(11), m12 = word(12), m13 = word(13), m14 = word(14), m15 = word(15)
        var (a, b, c, d) = state
        f(&a, b, c, d, m0, 7, 0xd76aa478)
        f(&d, a, b, c, m1, 12, 0xe8c7b756)
        f(&c, d, a, b, m2, 17, 0x242070db)
        f(&b, c, d, a, m3, 22, 0xc1bdceee)
        f(&a, b, c, d, m4, 7, 0xf57c0faf)
        f(&d, a, b, c, m5, 12, 0x4787c62a)
        f(&c, d, a, b, m6, 17, 0xa8304613)
        f(&b, c, d, a, m7, 22, 0xfd469501)
        f(&a, b, c, d, m8, 7, 0x698098d8)
        f(&d, a, b, c, m9, 12, 0x8b44f7af)
        f(&c, d, a, b, m10, 17, 0xffff5bb1)
        f(&b, c, d, a, m11, 22, 0x895cd7be)
        f(&a, b, c, d, m12, 7, 0x6b901122)
        f(&d, a, b, c, m13, 12, 0xfd987193)
        f(&c, d, a, b, m14, 17, 0xa679438e)
        f(&b, c, d, a, m15, 22, 0x49b40821)
        g(&a, b, c, d, m1, 5, 0xf61e2562)
        g(&d, a, b, c, m6, 9, 0xc040b340)
        g(&c, d, a, b, m11, 14, 0x265e5a51)
        g(&b, c, d, a, m0, 20, 0xe9b6c7aa)
        g(&a, b, c, d, m5, 5, 0xd62f105d)
        g(&d, a, b, c, m10, 9, 0x02441453)
        g(&c, d, a, b, m15, 14, 0xd8a1e681)
        g(&b, c, d, a, m4, 20, 0xe7d3fbc8)
        g(&a, b, c, d, m9, 5, 0x21e1cde6)
        g(&d, a, b, c, m14, 9, 0xc33707d6)
        g(&c, d, a, b, m3, 14, 0xf4d50d87)
        g(&b, c, d, a, m8, 20, 0x455a14ed)
        g(&a, b, c, d, m13, 5, 0xa9e3e905)
        g(&d, a, b, c, m2, 9, 0xfcefa3f8)
        g(&c, d, a, b, m7, 14, 0x676f02d9)
        g(&b, c, d, a, m12, 20, 0x8d2a4c8a)
        h(&a, b, c, d, m5, 4, 0xfffa3942)
        h(&d, a, b, c, m8, 11, 0x8771f681)
        h(&c, d, a, b, m11, 16, 0x6d9d6122)
        h(&b, c, d, a, m14, 23, 0xfde5380c)
        h(&a, b, c, d, m1, 4, 0xa4beea44)
        h(&d, a, b, c, m4, 11, 0x4bdecfa9)
        h(&c, d, a, b, m7, 16, 0xf6bb4b60)
        h(&b, c, d, a, m10, 23, 0xbebfbc70)
        h(&a, b, c, d, m13, 4, 0x289b7ec6)
        h(&d, a, b, c, m0, 11, 0xeaa127fa)
        h(&c, d, a, b, m3, 16, 0xd4ef3085)
        h(&b, c, d, a, m6, 23, 0x04881d05)
        h(&a, b, c, d, m9, 4, 0xd9d4d039)
        h(&d, a, b, c, m12, 11, 0xe6db99e5)
        h(&c, d, a, b, m15, 16, 0x1fa27cf8)
        h(&b, c, d, a, m2, 23, 0xc4ac5665)
        i(&a, b, c, d, m0, 6, 0xf4292244)
        i(&d, a, b, c, m7, 10, 0x432aff97)
        i(&c, d, a, b, m14, 15, 0xab9423a7)
        i(&b, c, d, a, m5, 21, 0xfc93a039)
        i(&a, b, c, d, m12, 6, 0x655b59c3)
        i(&d, a, b, c, m3, 10, 0x8f0ccc92)
        i(&c, d, a, b, m10, 15, 0xffeff47d)
        i(&b, c, d, a, m1, 21, 0x85845dd1)
        i(&a, b, c, d, m8, 6, 0x6fa87e4f)
        i(&d, a, b, c, m15, 10, 0xfe2ce6e0)
        i(&c, d, a, b, m6, 15, 0xa3014314)
        i(&b, c, d, a, m13, 21, 0x4e0811a1)
        i(&a, b, c, d, m4, 6, 0xf7537e82)
        i(&d, a, b, c, m11, 10, 0xbd3af235)
        i(&c, d, a, b, m2, 15, 0x2ad7d2bb)
        i(&b, c, d, a, m9, 21, 0xeb86d391)
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }

    // The four rounds' steps: a = b + ((a + F(b, c, d) + m + k) <<< s). Masking shifts (&<<): the
    // generic smart shifts are slow without optimization (the fuzz tests run a debug build).
    @inline(__always) private static func rotate(_ x: UInt32, _ s: UInt32) -> UInt32 { (x &<< s) | (x &>> (32 &- s)) }
    @inline(__always) private static func f(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ s: UInt32, _ k: UInt32) {
        a = b &+ rotate(a &+ ((b & c) | (~b & d)) &+ k &+ m, s)
    }
    @inline(__always) private static func g(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ s: UInt32, _ k: UInt32) {
        a = b &+ rotate(a &+ ((d & b) | (~d & c)) &+ k &+ m, s)
    }
    @inline(__always) private static func h(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ s: UInt32, _ k: UInt32) {
        a = b &+ rotate(a &+ (b ^ c ^ d) &+ k &+ m, s)
    }
    @inline(__always) private static func i(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ s: UInt32, _ k: UInt32) {
        a = b &+ rotate(a &+ (c ^ (b | ~d)) &+ k &+ m, s)
    }

    /// Lower-case hex digest, for tests and messages.
    package static func hex(_ message: [UInt8]) -> String { digest(message).hexString }

    /// llvm's `IndexedInstrProf::ComputeHash`/`MD5Hash`: the digest's first 8 bytes, little-endian.
    package static func low64(_ message: [UInt8]) -> UInt64 {
        message.withUnsafeBytes { low64($0) }
    }

    /// `low64` of bytes in place (a slice of a names section).
    package static func low64(_ message: UnsafeRawBufferPointer) -> UInt64 {
        let state = words(of: message)
        return UInt64(state.0) | UInt64(state.1) << 32
    }

    /// The NameRef of a PGO name: the key shared by profiles and the coverage mapping.
    package static func nameRef(of name: String) -> UInt64 { low64(Array(name.utf8)) }
}
