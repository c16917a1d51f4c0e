import TestscopeCoverage

/// The tokens the compiler sees on this platform: a Swift `#if` whose conditions are all decidable here
/// (`os()`, `arch()`, `true`, `false` with `!`, `&&`, `||` and parentheses) keeps only its active branch,
/// without the directives; any other `#if` (`canImport`, `swift(>=…)`, a flag) is kept whole. Two texts
/// with the same active code build the same program here: an edit only inside `#if os(Windows)` reaches no test.
package enum ActiveCode {
    package static func tokens(_ tokens: [SourceToken], os: String = ActiveCode.currentOS, arch: String = ActiveCode.currentArch) -> [String] {
        var result: [String] = []
        var index = 0
        active(tokens, &index, into: &result, os: os, arch: arch, stopAtBranch: false)
        return result
    }

    /// Copies tokens from `index` until the end (or, with `stopAtBranch`, the `#elseif`/`#else`/`#endif` of the
    /// `#if` being read, left at `index`), resolving each decidable `#if` on the way.
    private static func active(_ tokens: [SourceToken], _ index: inout Int, into result: inout [String], os: String, arch: String, stopAtBranch: Bool) {
        while index < tokens.count {
            let text = tokens[index].text
            if stopAtBranch, ["#elseif", "#else", "#endif"].contains(text) { return }
            guard text == "#if" else { result.append(text); index += 1; continue }
            let start = index
            var taken = false, decidable = true, kept: [String] = []
            // Each branch: its condition (the rest of the directive's line), then its code.
            while index < tokens.count, ["#if", "#elseif", "#else"].contains(tokens[index].text) {
                let directive = tokens[index]
                index += 1
                var condition: [String] = []
                if directive.text != "#else" {
                    while index < tokens.count, tokens[index].start.line == directive.start.line { condition.append(tokens[index].text); index += 1 }
                }
                let value = directive.text == "#else" ? true : evaluate(condition, os: os, arch: arch)
                if value == nil { decidable = false }
                var branch: [String] = []
                active(tokens, &index, into: &branch, os: os, arch: arch, stopAtBranch: true)
                if !taken, value == true { (kept, taken) = (branch, true) }
            }
            guard index < tokens.count, tokens[index].text == "#endif" else {
                // An unterminated #if: the rest as it is written.
                result += tokens[start...].map(\.text)
                index = tokens.count
                return
            }
            index += 1
            if decidable {
                result += kept
            } else {
                result += tokens[start..<index].map(\.text)
            }
        }
    }

    /// The condition's value here, or nil when it holds anything but `os()`, `arch()`, `true`, `false`,
    /// `!`, `&&`, `||` and parentheses.
    static func evaluate(_ condition: [String], os: String, arch: String) -> Bool? {
        var position = 0
        func primary() -> Bool? {
            guard position < condition.count else { return nil }
            let token = condition[position]
            switch token {
            case "!":
                position += 1
                return primary().map { !$0 }
            case "(":
                position += 1
                let value = disjunction()
                guard position < condition.count, condition[position] == ")" else { return nil }
                position += 1
                return value
            case "true", "false":
                position += 1
                return token == "true"
            case "os", "arch":
                guard position + 3 < condition.count, condition[position + 1] == "(", condition[position + 3] == ")" else { return nil }
                let name = condition[position + 2]
                position += 4
                return token == "os" ? name == os : name == arch
            default:
                return nil
            }
        }
        // `a op b op c`, left to right: `&&` over primaries, `||` over conjunctions.
        func chain(_ op: String, _ operand: () -> Bool?, _ combine: (Bool, Bool) -> Bool) -> Bool? {
            guard var value = operand() else { return nil }
            while position < condition.count, condition[position] == op {
                position += 1
                guard let next = operand() else { return nil }
                value = combine(value, next)
            }
            return value
        }
        func conjunction() -> Bool? { chain("&&", primary) { $0 && $1 } }
        func disjunction() -> Bool? { chain("||", conjunction) { $0 || $1 } }
        let value = disjunction()
        return position == condition.count ? value : nil
    }

    /// The platform this Testscope runs on, as `os()` names it (the build it selects for runs here).
    package static var currentOS: String {
        #if os(Linux)
        return "Linux"
        #elseif os(macOS)
        return "macOS"
        #elseif os(Windows)
        return "Windows"
        #else
        return ""
        #endif
    }

    /// The architecture, as `arch()` names it.
    package static var currentArch: String {
        #if arch(x86_64)
        return "x86_64"
        #elseif arch(arm64)
        return "arm64"
        #else
        return ""
        #endif
    }
}
