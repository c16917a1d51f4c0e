/// This target is compiled with `-O` (see Package.swift) so that the optimizer removes
/// `strippedByOptimizer`: the function has a coverage mapping record (`__llvm_covfun`, and its
/// name in `__llvm_prf_names`) but no code, no counters and no profile data record in the
/// binary, the "dead-stripped function" case. (At -Onone even an unused `private` function
/// is emitted with its counters, like `deadAndGone` in AsyncWork.swift.)
private func strippedByOptimizer(_ x: Int) -> Int {
    if x > 1 {
        return x - 1
    }
    return x + 1
}

/// Called by a test, so this target has at least one function with counts.
public func keptByOptimizer(_ x: Int) -> Int {
    x &* 3
}
