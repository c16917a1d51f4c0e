import CClamp

/// Swift wrapper around the C functions (Swift regions next to the C ones in one export).
public enum Clamp {
    public static func clamp(_ x: Int32, _ lo: Int32, _ hi: Int32) -> Int32 {
        cclamp(x, lo, hi)
    }

    public static func contains(_ x: Int32, _ lo: Int32, _ hi: Int32) -> Bool {
        cclamp_in_range(x, lo, hi) != 0
    }
}
