/// The first even number, or nil. The `where` filter with a `return` in the loop is what gives the
/// lines after the loop a negative count in Swift's coverage mapping.
public func firstEven(_ numbers: [Int]) -> Int? {
    for number in numbers where number % 2 == 0 {
        return number
    }
    return nil
}

/// A line far wider than a window: the file page must keep it inside the source block.
public func banner() -> String { "LoopFilter keeps the first even number of a list and returns nil when the list has none; this sentence is long on purpose, so that the annotated source shows a line much wider than any browser window, which has to stay inside the source block of the file page." }
