import Foundation

/// Which of the listed tests a run leaves out (`run --affected`), each reported skipped with its reason;
/// every other listed test runs — a test the selection does not know (a new one) is never left out.
public struct TestSelection: Sendable, Equatable {
    /// Why a test is not run, and how long it took when it last ran (seconds; the time the skip saves).
    public struct Skip: Sendable, Equatable {
        public var reason: String
        public var recordedDuration: Double?

        public init(reason: String, recordedDuration: Double? = nil) {
            self.reason = reason
            self.recordedDuration = recordedDuration
        }
    }

    /// The skipped tests' reasons and durations, by id as `swift test list` prints it.
    public var skipped: [String: Skip]

    public init(skipped: [String: Skip]) {
        self.skipped = skipped
    }

    /// The part of `list` to run, and each skipped test of it with its skip, in the list's order.
    package func split(_ list: TestList) -> (run: TestList, skipped: [(id: String, skip: Skip)]) {
        let runs = { (id: String) in self.skipped[id] == nil }
        let kept = TestList(xctest: list.xctest.filter(runs), swiftTesting: list.swiftTesting.filter(runs))
        let others = (list.xctest + list.swiftTesting).filter { !runs($0) }
        return (kept, others.map { ($0, skipped[$0]!) })
    }

    /// A skipped result for each test the selection does not run (`split`'s `skipped`).
    package static func skippedResults(_ skipped: [(id: String, skip: Skip)], of list: TestList) -> [TestCaseResult] {
        let xctest = Set(list.xctest)
        return skipped.map { id, skip in
            let parts = SwiftTestingEventStream.split(id)
            return TestCaseResult(id: id, framework: xctest.contains(id) ? .xctest : .swiftTesting, module: parts.module,
                                  suite: parts.suite, name: parts.name, outcome: .skipped, skipReason: skip.reason)
        }
    }
}

/// What a run's selection saved, per reason: `N tests skipped: reason (saved about X s)`.
package struct SelectionSkips: Sendable, Equatable {
    package var reason: String
    package var count: Int
    /// The skipped tests' recorded durations summed (tests without one count nothing).
    package var timeSaved: Double

    /// The terminal's and the Markdown summary's line.
    package var line: String {
        "\(count) test\(count == 1 ? "" : "s") skipped: \(reason) (saved about \(Self.seconds(timeSaved)))"
    }

    /// `0.004 s`, `4.2 s`, `12 s`, `3 min 5 s`.
    package static func seconds(_ value: Double) -> String {
        if value < 1 { return String(format: "%.3f s", value) }
        if value < 10 { return String(format: "%.1f s", value) }
        let whole = Int(value.rounded())
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }

    /// The groups of `skips`, by reason in order of first appearance.
    package static func grouped(_ skips: [(id: String, skip: TestSelection.Skip)]) -> [SelectionSkips] {
        var groups: [SelectionSkips] = []
        for (_, skip) in skips {
            let saved = skip.recordedDuration.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? 0
            if let index = groups.firstIndex(where: { $0.reason == skip.reason }) {
                groups[index].count += 1
                groups[index].timeSaved += saved
            } else {
                groups.append(SelectionSkips(reason: skip.reason, count: 1, timeSaved: saved))
            }
        }
        return groups
    }
}

/// What `run --affected` decided for one test: run it or not, and why (the rule and its evidence).
public struct SelectionDecision: Sendable, Equatable {
    /// The skip reason the reports group by (the decision's own reason has the detail).
    public static let notAffected = "not affected by the change"
    public var selected: Bool
    public var reason: String

    public init(selected: Bool, reason: String) {
        self.selected = selected
        self.reason = reason
    }
}

/// Whether a failing test executed code the change touched (DeFlaker's rule): a failure that did not
/// is likely flaky.
public enum FailureLabel: Sendable, Equatable, Hashable, Codable {
    /// It executed changed code: the first changed line it ran (`path:line`).
    case touched(String)
    case notTouched
    /// Neither can be said: a new test, a resource or manifest change, no coverage.
    case unknown(String)

    /// What the reports print beside the failure.
    public var text: String {
        switch self {
        case .touched(let place): return "touched by the change (\(place))"
        case .notTouched: return "not touched by the change (likely flaky)"
        case .unknown(let reason): return "unknown: \(reason)"
        }
    }

    /// tests.json's and JUnit's `label` value: `touched`, `not-touched`, `unknown`.
    public var code: String {
        switch self {
        case .touched: return "touched"
        case .notTouched: return "not-touched"
        case .unknown: return "unknown"
        }
    }

    /// The reason of `unknown`, else nil.
    public var reason: String? {
        if case .unknown(let reason) = self { return reason }
        return nil
    }
}
