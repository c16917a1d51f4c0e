import TestscopeProfileData

/// `CounterMappingContext::evaluate` for one function at a time: signed 64-bit wrapping arithmetic,
/// each expression evaluated once per kind (memoised), iteratively (no recursion depth from input);
/// a cycle in the expressions is an error rather than llvm's endless loop. Buffers are reused
/// across functions.
///
/// An expression's kind comes from the counter that refers to it (`.add(i)` / `.subtract(i)`),
/// so the memo is per (expression, kind).
struct CounterEvaluator {
    struct Value {
        var value: Int64
        /// The value, or a counter or sub-expression it was computed from, was negative.
        var wentNegative: Bool
    }

    private enum State: UInt8 { case unvisited, inProgress, done, failed }

    /// A record's counters, in place, as the profile has them: valid while the record is evaluated.
    enum Counts {
        case found(UnsafeBufferPointer<UInt64>)
        /// The name is in the profile, but not with this hash: llvm-cov drops the function.
        case hashMismatch
        /// The name is not in the profile: llvm-cov counts the function as all zeros.
        case unknown
    }

    private var expressions: [MappingExpression] = []
    /// nil: the function is not in the profile, every counter is 0. The caller's buffer, read only
    /// between `reset` and the record's last `evaluate` (a slice of the profile's pool held here
    /// retained and released that pool, shared by every core, at each record).
    private var counts: UnsafeBufferPointer<UInt64>?
    /// Indexed by node = expression index × 2 + (1 for subtract).
    private var states: [State] = []
    private var values: [Value] = []
    private var stack: [Int] = []

    mutating func reset(expressions: [MappingExpression], counts: UnsafeBufferPointer<UInt64>?) {
        // Copied into the evaluator's own storage: holding the caller's array would keep the
        // decoder's reused buffer shared, and its next record would need a new one.
        self.expressions.removeAll(keepingCapacity: true)
        self.expressions.append(contentsOf: expressions)
        self.counts = counts
        states.removeAll(keepingCapacity: true)
        states.append(contentsOf: repeatElement(.unvisited, count: expressions.count * 2))
        values.removeAll(keepingCapacity: true)
        values.append(contentsOf: repeatElement(Value(value: 0, wentNegative: false), count: expressions.count * 2))
    }

    /// `Counts[0]` (0 when there is none).
    var firstCount: UInt64 { counts?.first ?? 0 }

    /// nil: an out-of-range counter or expression, or a cyclic expression.
    mutating func evaluate(_ counter: MappingCounter) -> Value? {
        switch counter {
        case .zero, .counter:
            return leaf(counter)
        case .add, .subtract:
            guard let root = node(counter) else { return nil }
            return expression(root)
        }
    }

    /// The memo slot of an expression reference; nil for an out-of-range index or a non-expression.
    private func node(_ counter: MappingCounter) -> Int? {
        switch counter {
        case .add(let index) where Int(index) < expressions.count: return Int(index) * 2
        case .subtract(let index) where Int(index) < expressions.count: return Int(index) * 2 + 1
        default: return nil
        }
    }

    private static func isExpression(_ counter: MappingCounter) -> Bool {
        switch counter {
        case .add, .subtract: return true
        case .zero, .counter: return false
        }
    }

    /// A counter's value, or an expression's once it is done; nil when out of range or failed.
    private func leaf(_ counter: MappingCounter) -> Value? {
        switch counter {
        case .zero:
            return Value(value: 0, wentNegative: false)
        case .counter(let id):
            guard let counts else { return Value(value: 0, wentNegative: false) }
            guard Int(id) < counts.count else { return nil }
            let value = Int64(bitPattern: counts[Int(id)])
            return Value(value: value, wentNegative: value < 0)
        case .add, .subtract:
            guard let n = node(counter), states[n] == .done else { return nil }
            return values[n]
        }
    }

    /// Pushes a side that still needs evaluating; false when it is out of range or refers back to
    /// an expression still being evaluated (a cycle).
    private mutating func schedule(_ side: MappingCounter) -> Bool {
        guard Self.isExpression(side) else { return true }
        guard let n = node(side), states[n] != .inProgress else { return false }
        if states[n] == .unvisited { stack.append(n) }
        return true
    }

    private mutating func expression(_ root: Int) -> Value? {
        stack.removeAll(keepingCapacity: true)
        stack.append(root)
        while let top = stack.last {
            switch states[top] {
            case .done, .failed:
                stack.removeLast()
            case .unvisited:
                states[top] = .inProgress
                let e = expressions[top >> 1]
                if !schedule(e.rhs) || !schedule(e.lhs) {
                    states[top] = .failed
                    stack.removeLast()
                }
            case .inProgress:
                stack.removeLast()
                let e = expressions[top >> 1]
                guard let lhs = leaf(e.lhs), let rhs = leaf(e.rhs) else {
                    states[top] = .failed
                    continue
                }
                let value = top & 1 == 1 ? lhs.value &- rhs.value : lhs.value &+ rhs.value
                values[top] = Value(value: value, wentNegative: value < 0 || lhs.wentNegative || rhs.wentNegative)
                states[top] = .done
            }
        }
        return states[root] == .done ? values[root] : nil
    }
}

extension ProfileCounters.Lookup {
    /// `body` given the lookup's counters in place.
    func withCounts<R>(_ body: (CounterEvaluator.Counts) -> R) -> R {
        switch self {
        case .found(let counts): return counts.withUnsafeBufferPointer { body(.found($0)) }
        case .hashMismatch: return body(.hashMismatch)
        case .unknown: return body(.unknown)
        }
    }
}
