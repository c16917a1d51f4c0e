/// Something with an area.
public protocol Shape {
    var area: Double { get }
}

public struct Rect: Shape {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public var area: Double { width * height }
}

public struct Circle: Shape {
    public var radius: Double

    public init(radius: Double) { self.radius = radius }

    public var area: Double { 3.14159 * radius * radius }
}

public enum ShapeError: Error, Equatable {
    case negative(Double)
    case empty
}

/// Generic: the largest of some shapes.
public func largest<S: Shape>(_ shapes: [S]) -> S? {
    shapes.max { a, b in a.area < b.area }
}

/// A throwing guard whose `throw` never runs in the tests.
public func validated(_ rect: Rect) throws -> Rect {
    guard rect.width >= 0 else { throw ShapeError.negative(rect.width) }
    guard rect.height >= 0 else { throw ShapeError.negative(rect.height) }
    return rect
}

/// Closures and an autoclosure (`&&`).
public func totalArea(_ shapes: [any Shape], onlyBig: Bool) -> Double {
    let areas = shapes.map { $0.area }
    let kept = areas.filter { area in
        onlyBig && area > 10
            ? true
            : !onlyBig
    }
    return kept.reduce(0, +)
}

/// Never called by any test.
public func unusedPerimeter(_ rect: Rect) -> Double {
    let twice = 2 * (rect.width + rect.height)
    return twice
}
