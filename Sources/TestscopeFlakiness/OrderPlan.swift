import Foundation
import TestscopeExecution

/// How a run's order was made.
public enum OrderKind: String, Sendable, Equatable, Codable {
    /// `swift test`'s order: XCTest classes and methods as listed, then Swift Testing as listed.
    case `default`
    /// The default order reversed: every polluter → victim and setter → brittle pair at once.
    case reverse
    /// Classes (suites) in a seeded order, each class's methods in a seeded order; classes stay contiguous.
    case classShuffle = "class-shuffle"
    /// Every test in a seeded order: methods of different classes interleaved.
    case methodShuffle = "method-shuffle"
    /// An order given with `--order` / `--order-file`.
    case given
}

/// One run of the plan: its index, kind, seed and the tests in order.
public struct PlannedOrder: Sendable, Equatable {
    public var index: Int
    public var kind: OrderKind
    /// The run's own seed (shuffles only): every position is `hash(runSeed, test id)`.
    public var runSeed: UInt64?
    public var tests: [String]
    /// The conditions the run's process runs under (`--nod-modes`).
    public var mode: NODMode

    public init(index: Int, kind: OrderKind, runSeed: UInt64? = nil, tests: [String], mode: NODMode = .plain) {
        self.index = index
        self.kind = kind
        self.runSeed = runSeed
        self.tests = tests
        self.mode = mode
    }

    /// `class-shuffle, seed 0x…` for the terminal and the reports.
    public var label: String {
        let under = mode == .plain ? "" : ", \(mode.rawValue)"
        switch kind {
        case .default: return "default order" + under
        case .reverse: return "reverse of run 0" + under
        case .classShuffle, .methodShuffle: return "\(kind.rawValue) (run seed \(runSeed.map(OrderPlan.hex) ?? "-")\(under))"
        case .given: return "given order" + under
        }
    }
}

/// The orders of a flaky run. Run 0 is the default order (the baseline), run 1 its reverse, then
/// seeded shuffles alternating class level and method level. A test's position in a shuffle is a sort
/// by `hash(runSeed, id)` (as RSpec and pytest-randomly do), so any subset of the tests keeps its relative
/// order: bisection and prefix reruns rely on that. The plan depends only on the seed and the test list.
package struct OrderPlan: Sendable {
    /// Seeds are kept below 2^53 so that JSON readers hold them exactly.
    package static let maximumSeed: UInt64 = (1 << 53) - 1

    package var seed: UInt64
    /// The selected tests in the default order.
    package var defaultOrder: [String]
    /// Swift Testing tests' serial ranks. Shuffles keep a suite's tests together in this order (so a
    /// suite runs in one call of Swift Testing's entry point, which discovers every test again on each
    /// call); method-level shuffles place each such suite among the XCTest methods. Empty: every test
    /// is shuffled on its own.
    package var fixedWithinGroup: [String: Int]
    /// The NOD modes the runs take in turn (run k: `modes[k % count]`).
    package var modes: [NODMode]

    package init(seed: UInt64, defaultOrder: [String], fixedWithinGroup: [String: Int] = [:], modes: [NODMode] = [.plain]) {
        self.seed = seed
        self.defaultOrder = defaultOrder
        self.fixedWithinGroup = fixedWithinGroup
        self.modes = modes
    }

    /// Run `index` of the plan.
    package func order(_ index: Int) -> PlannedOrder {
        let mode = NODMode.mode(ofRun: index, in: modes)
        switch index {
        case 0: return PlannedOrder(index: 0, kind: .default, tests: defaultOrder, mode: mode)
        case 1: return PlannedOrder(index: 1, kind: .reverse, tests: defaultOrder.reversed(), mode: mode)
        default:
            let runSeed = Self.runSeed(seed: seed, index: index)
            let kind: OrderKind = index % 2 == 0 ? .classShuffle : .methodShuffle
            let tests = kind == .classShuffle ? Self.classShuffle(defaultOrder, seed: runSeed, fixed: fixedWithinGroup)
                : Self.methodShuffle(defaultOrder, seed: runSeed, fixed: fixedWithinGroup)
            return PlannedOrder(index: index, kind: kind, runSeed: runSeed, tests: tests, mode: mode)
        }
    }

    /// The first `count` runs.
    package func orders(count: Int) -> [PlannedOrder] { (0..<max(0, count)).map(order) }

    /// A run's seed, derived from the plan's seed and the run's index.
    package static func runSeed(seed: UInt64, index: Int) -> UInt64 {
        StableHash.mix(seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
    }

    /// All tests sorted by `hash(seed, id)` (ties, which need a 64-bit collision, by id); tests with a
    /// `fixed` rank stay together per group, in rank order, the group placed by `hash(seed, group)`.
    package static func methodShuffle(_ tests: [String], seed: UInt64, fixed: [String: Int] = [:]) -> [String] {
        var blocks: [String: [String]] = [:]
        var items: [(UInt64, String, [String])] = []
        for test in tests {
            if fixed[test] != nil {
                blocks[TestIdentity.group(of: test), default: []].append(test)
            } else {
                items.append((StableHash.hash(seed: seed, test), test, [test]))
            }
        }
        for (group, members) in blocks {
            items.append((StableHash.hash(seed: seed, "block:" + group), "block:" + group, members.sorted { fixed[$0]! < fixed[$1]! }))
        }
        return items.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.flatMap(\.2)
    }

    /// Groups (classes, suites) sorted by `hash(seed, group)`, tests within a group by `hash(seed, id)`,
    /// or by `fixed` rank when they all have one.
    package static func classShuffle(_ tests: [String], seed: UInt64, fixed: [String: Int] = [:]) -> [String] {
        var groups: [String: [String]] = [:]
        for test in tests { groups[TestIdentity.group(of: test), default: []].append(test) }
        return groups.keys.map { (StableHash.hash(seed: seed, "group:" + $0), $0) }.sorted { $0 < $1 }.flatMap { group -> [String] in
            let members = groups[group.1]!
            guard members.allSatisfy({ fixed[$0] != nil }) else { return methodShuffle(members, seed: seed) }
            return members.sorted { fixed[$0]! < fixed[$1]! }
        }
    }

    /// A random seed for runs without `--seed`.
    package static func randomSeed() -> UInt64 { UInt64.random(in: 0...maximumSeed) }

    /// Parses `--seed`: a decimal integer from 0 to `maximumSeed`.
    package static func parseSeed(_ text: String) throws -> UInt64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber),
              let value = UInt64(trimmed), value <= maximumSeed else { throw FlakinessError.malformedSeed(text) }
        return value
    }

    /// `0x` and 16 hex digits, as run seeds are printed.
    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// What a test id says about its test: `Module.Class/testMethod` (XCTest), `Module.Suite/function()`,
/// `Module.function()` (Swift Testing).
package enum TestIdentity {
    /// The class or suite (`Module.Class`, `Module.Outer/Inner`), or the module for a free function.
    package static func group(of id: String) -> String {
        if let slash = separator(in: id) { return String(id[..<slash]) }
        return id.firstIndex(of: ".").map { String(id[..<$0]) } ?? id
    }

    /// `(Module.Class, testMethod)`, `(Module.Outer.Inner, f())`, `(Module, f())` for a free function.
    package static func classAndName(of id: String) -> (className: String, name: String) {
        if let slash = separator(in: id) {
            return (id[..<slash].replacingOccurrences(of: "/", with: "."), String(id[id.index(after: slash)...]))
        }
        guard let dot = id.firstIndex(of: ".") else { return ("Tests", id) }
        return (String(id[..<dot]), String(id[id.index(after: dot)...]))
    }

    /// The `/` before the test's own name: the first one for XCTest (`Module.Class/testMethod`), the last
    /// one before the parameter list for Swift Testing (whose raw-identifier names may hold a `/`).
    static func separator(in id: String) -> String.Index? {
        guard id.hasSuffix(")") else { return id.firstIndex(of: "/") }
        var quoted = false
        var last: String.Index?
        for index in id.indices {
            switch id[index] {
            case "`": quoted.toggle()
            case "(" where !quoted: return last
            case "/" where !quoted: last = index
            default: break
            }
        }
        return last
    }

    /// `Class.method`, the name Linux XCTest prints for `Module.Class/method`.
    package static func xctestKey(of id: String) -> String {
        guard let slash = id.firstIndex(of: "/") else { return id }
        let qualified = id[..<slash]
        let className = qualified.firstIndex(of: ".").map { qualified[qualified.index(after: $0)...] } ?? qualified
        return "\(className).\(id[id.index(after: slash)...])"
    }
}

/// Reading orders: `--order-file` (one id per line, `#` comments) and `--order` (comma-separated).
package enum OrderFile {
    /// The ids in a file's text.
    package static func parse(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// Reads an order file.
    package static func read(_ url: URL) throws -> [String] {
        parse(try text(url, unreadable: FlakinessError.unreadableOrderFile))
    }

    /// A UTF-8 text file (a pipe such as `<(cmd)` too), or `unreadable`'s error naming it.
    package static func text(_ url: URL, unreadable: (_ path: String, _ reason: String) -> FlakinessError) throws -> String {
        let bytes: [UInt8]
        do { bytes = try InputFile.read(url) } catch { throw unreadable(url.path, error.reason) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw unreadable(url.path, "it is not UTF-8 text") }
        return text
    }

    /// The text of an order file.
    package static func text(_ tests: [String]) -> String { tests.map { $0 + "\n" }.joined() }

    /// Checks an order against the package's tests: known ids, each at most once, at least one.
    package static func validate(_ tests: [String], known: Set<String>, source: String) throws {
        guard !tests.isEmpty else { throw FlakinessError.badOrder(source: source, detail: "it names no test") }
        if let unknown = tests.first(where: { !known.contains($0) }) {
            throw FlakinessError.badOrder(source: source, detail: "'\(unknown)' is not a test of this package (after --filter/--skip)")
        }
        var seen = Set<String>()
        if let twice = tests.first(where: { !seen.insert($0).inserted }) {
            throw FlakinessError.badOrder(source: source, detail: "'\(twice)' appears twice")
        }
    }
}
