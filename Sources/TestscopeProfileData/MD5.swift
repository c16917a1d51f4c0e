/// MD5 (RFC 1321), only for llvm's keys: NameRef and FilenamesRef are its low 64 bits, read
/// little-endian. Own implementation so the module needs no crypto package.
public enum MD5 {
    /// The 16-byte digest of `message`.
    public static func digest(_ message: [UInt8]) -> [UInt8] {
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
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
            tail.initialize(repeating: 0)
            let rest = message.count - whole
            for index in 0..<rest { tail[index] = message[whole + index] }
            tail[rest] = 0x80
            let tailLength = rest + 1 + 8 <= 64 ? 64 : 128
            let bitLength = UInt64(truncatingIfNeeded: message.count) &* 8
            for index in 0..<8 { tail[tailLength - 8 + index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(8 * index)) }
            let t = UnsafeRawBufferPointer(tail)
            compress(&state, UnsafeRawBufferPointer(rebasing: t[0..<64]))
            if tailLength == 128 { compress(&state, UnsafeRawBufferPointer(rebasing: t[64..<128])) }
        }
        return state
    }

    /// One 64-byte block (RFC 1321 §3.4).
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32), _ p: UnsafeRawBufferPointer) {
        // Local copies and unsafe buffers of the fixed tables: indices are constants below 64, never
        // from the input, and this keeps debug builds (the tests) fast enough for fuzzing.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { m in
            for index in 0..<16 {
                let base = index * 4
                m[index] = UInt32(p[base]) | UInt32(p[base + 1]) << 8 | UInt32(p[base + 2]) << 16 | UInt32(p[base + 3]) << 24
            }
            Self.shifts.withUnsafeBufferPointer { s in
                Self.constants.withUnsafeBufferPointer { k in
                    var (a, b, c, d) = state
                    var step = 0
                    while step < 64 {
                        let f: UInt32, g: Int
                        if step < 16 { f = (b & c) | (~b & d); g = step }
                        else if step < 32 { f = (d & b) | (~d & c); g = (5 &* step &+ 1) & 15 }
                        else if step < 48 { f = b ^ c ^ d; g = (3 &* step &+ 5) & 15 }
                        else { f = c ^ (b | ~d); g = (7 &* step) & 15 }
                        // Masking shifts (&<<): the generic smart shifts are slow without optimization.
                        let sum = f &+ a &+ k[step] &+ m[g]
                        a = d
                        d = c
                        c = b
                        b = b &+ ((sum &<< s[step]) | (sum &>> (32 &- s[step])))
                        step += 1
                    }
                    state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
                }
            }
        }
    }

    /// Lower-case hex digest, for tests and messages.
    public static func hex(_ message: [UInt8]) -> String { digest(message).hexString }

    /// llvm's `IndexedInstrProf::ComputeHash`/`MD5Hash`: the digest's first 8 bytes, little-endian.
    public static func low64(_ message: [UInt8]) -> UInt64 {
        message.withUnsafeBytes { low64($0) }
    }

    /// `low64` of bytes in place (a slice of a names section).
    public static func low64(_ message: UnsafeRawBufferPointer) -> UInt64 {
        let state = words(of: message)
        return UInt64(state.0) | UInt64(state.1) << 32
    }

    /// The NameRef of a PGO name: the key shared by profiles and the coverage mapping.
    public static func nameRef(of name: String) -> UInt64 { low64(Array(name.utf8)) }

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) × 2^32), RFC 1321 §3.4.
    private static let constants: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]
}
