// No test ever calls anything in this file.
public struct LegacyTriangle {
    public var base: Double
    public var height: Double

    public init(base: Double, height: Double) {
        self.base = base
        self.height = height
    }

    public func area() -> Double {
        if base < 0 || height < 0 {
            return 0
        }
        return base * height / 2
    }
}
