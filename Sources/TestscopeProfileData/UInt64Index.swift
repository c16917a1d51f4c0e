import TestscopeExecution

/// A map from 64-bit keys that are already hashes (NameRefs: MD5 halves; the coverage model's
/// provenance hashes) to `Int32` indices:
/// open addressing, linear probing, at most half full. `Dictionary<UInt64, _>` runs SipHash on
/// every key: its lookups and inserts were 2 % of a text report's CPU at 800 files (three tables
/// of 55,200 NameRefs). Keys are mixed with a per-table random seed, so a hostile profile cannot
/// aim its keys at one chain. The table has twice as many slots as it was sized for, not the next
/// power of two: three tables of 70,874 keys, each at 262,144 slots, were 9.4 MB at the peak of an
/// 800-file report (a slot is found by multiplying the mixed key's high half by the slot count).
package struct UInt64Index: Sendable {
    private var keys: [UInt64] = []
    /// -1: an empty slot.
    private var values: [Int32] = []
    private let seed = Self.nextSeed()
    package private(set) var count = 0

    package init(minimumCapacity: Int = 0) {
        resize(Self.slots(for: minimumCapacity))
    }

    /// The seeds: one random number for the process (a `getrandom` call per table was two system
    /// calls per file of a report), each table's its own mix of it with a counter.
    private static let seeds = Locked((base: UInt64.random(in: .min ... .max), count: UInt64(0)))

    private static func nextSeed() -> UInt64 {
        var z = seeds.withLock { state -> UInt64 in
            state.count &+= 1
            return state.base &+ state.count &* 0x9E37_79B9_7F4A_7C15
        }
        // splitmix64's finalizer: neighbouring counts give unrelated seeds.
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The value of `key`, or nil; setting a value inserts or replaces (there is no removal).
    package subscript(key: UInt64) -> Int32? {
        get {
            guard count > 0 else { return nil }
            var slot = home(key)
            while values[slot] >= 0 {
                if keys[slot] == key { return values[slot] }
                slot = slot + 1 == keys.count ? 0 : slot + 1
            }
            return nil
        }
        set {
            guard let newValue else { preconditionFailure("UInt64Index has no removal") }
            precondition(newValue >= 0, "UInt64Index values are indices")
            if (count + 1) * 2 > keys.count { resize(max(keys.count * 2, 16)) }
            var slot = home(key)
            while values[slot] >= 0 {
                if keys[slot] == key { values[slot] = newValue; return }
                slot = slot + 1 == keys.count ? 0 : slot + 1
            }
            keys[slot] = key
            values[slot] = newValue
            count += 1
        }
    }

    /// Every (key, value), in no particular order.
    package func forEach(_ body: (UInt64, Int32) -> Void) {
        for slot in values.indices where values[slot] >= 0 { body(keys[slot], values[slot]) }
    }

    /// Whether the table has the slots `init(minimumCapacity: count)` would give it.
    package func isSized(for count: Int) -> Bool { keys.count == Self.slots(for: count) }

    private func home(_ key: UInt64) -> Int {
        let mixed = (key ^ seed) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: ((mixed >> 32) &* UInt64(keys.count)) >> 32)
    }

    private static func slots(for capacity: Int) -> Int {
        max(16, capacity * 2)
    }

    private mutating func resize(_ slots: Int) {
        precondition(slots <= Int(UInt32.max), "UInt64Index holds fewer than 2^31 keys")
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: 0, count: slots)
        values = [Int32](repeating: -1, count: slots)
        count = 0
        for slot in oldValues.indices where oldValues[slot] >= 0 { self[oldKeys[slot]] = oldValues[slot] }
    }
}
