/// A 64-bit hash that is the same in every process and on every platform (FNV-1a, then the
/// SplitMix64 finalizer for a good spread of all bits). Swift's `Hasher` is seeded per process and
/// cannot give replayable orders or shards. Used by `flaky`'s orders and `run --shard`'s partition.
package enum StableHash {
    /// FNV-1a over the seed's 8 bytes (little-endian) and the text's UTF-8, then `mix`.
    package static func hash(seed: UInt64, _ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var s = seed
        for _ in 0..<8 {
            h = (h ^ (s & 0xFF)) &* 0x0000_0100_0000_01B3
            s >>= 8
        }
        for byte in text.utf8 {
            h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return mix(h)
    }

    /// The SplitMix64 finalizer: every input bit affects every output bit.
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
