/// The old way, kept for callers that have not moved: every use warns.
@available(*, deprecated, message: "use total(_:) instead")
public func oldTotal(_ values: Int...) -> Int { total(values) }

public func total(_ values: [Int]) -> Int { values.reduce(0, +) }

/// Three warnings of their own, each once: a `var` never mutated, an unused value, an unreachable line.
public func describe(_ value: Int) -> String {
    var text = "value \(value)"
    let unused = value * 2
    return text
    print("never")
}
