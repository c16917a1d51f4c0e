/// Describes shapes; parts are excluded from coverage with markers.
public enum Describe {
    public static func label(for shape: any Shape) -> String {
        switch shape {
        case let r as Rect:
            return "rect \(r.width)x\(r.height)"
        case let c as Circle:
            return "circle r=\(c.radius)"
        default:
            fatalError("unknown shape") // testscope:ignore
        }
    }

    // testscope:ignore:start
    public static func debugDump(_ shape: any Shape) -> String {
        "\(shape)"
    }
    // testscope:ignore:end

    public static func summary(_ shapes: [any Shape]) -> String {
        if shapes.isEmpty {
            return "nothing"
        }
        return shapes.map(label(for:)).joined(separator: ", ")
    }
}
