public enum Money {
    /// Formats cents as "12.34".
    public static func format(_ cents: Int) -> String {
        let sign = cents < 0 ? "-" : ""
        let value = abs(cents)
        let fraction = value % 100
        return "\(sign)\(value / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// Never called by any test.
    public static func formatEuros(_ cents: Int) -> String {

        // Comment in an uncovered function.
        return format(cents) + " EUR"
    }
}
