/// A map from 64-bit keys that are already hashes (NameRefs: MD5 halves; the coverage model's
/// provenance hashes) to `Int32` indices:
/// open addressing, linear probing, at most half full. `Dictionary<UInt64, _>` runs SipHash on
/// every key: its lookups and inserts were 2 % of a text report's CPU at 800 files (three tables
/// of 55,200 NameRefs). Keys are mixed with a per-table random seed, so a hostile profile cannot
/// aim its keys at one chain.
public struct UInt64Index: Sendable {
    private var keys: [UInt64] = []
    /// -1: an empty slot.
    private var values: [Int32] = []
    private var shift: UInt64 = 64
    private let seed = UInt64.random(in: .min ... .max)
    public private(set) var count = 0

    public init(minimumCapacity: Int = 0) {
        resize(Self.slots(for: minimumCapacity))
    }

    /// The value of `key`, or nil; setting a value inserts or replaces (there is no removal).
    public subscript(key: UInt64) -> Int32? {
        get {
            guard count > 0 else { return nil }
            var slot = home(key)
            while values[slot] >= 0 {
                if keys[slot] == key { return values[slot] }
                slot = (slot + 1) & (keys.count - 1)
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
                slot = (slot + 1) & (keys.count - 1)
            }
            keys[slot] = key
            values[slot] = newValue
            count += 1
        }
    }

    /// Every (key, value), in no particular order.
    public func forEach(_ body: (UInt64, Int32) -> Void) {
        for slot in values.indices where values[slot] >= 0 { body(keys[slot], values[slot]) }
    }

    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: ((key ^ seed) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private static func slots(for capacity: Int) -> Int {
        var n = 16
        while n < capacity * 2 { n *= 2 }
        return n
    }

    private mutating func resize(_ slots: Int) {
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: 0, count: slots)
        values = [Int32](repeating: -1, count: slots)
        shift = UInt64(64 - slots.trailingZeroBitCount)
        count = 0
        for slot in oldValues.indices where oldValues[slot] >= 0 { self[oldKeys[slot]] = oldValues[slot] }
    }
}
