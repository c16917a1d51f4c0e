import TestscopeCoverage

/// Run or skip, with the one reason `--why TEST` prints.
package struct TestDecision: Equatable, Sendable {
    package var test: String
    package var run: Bool
    package var reason: String
}

/// Decides, for every current test, whether the change can reach it: always-run rules first, then the
/// change's rules from the most precise (a function's body) to the widest (a target's declarations).
package struct SelectionRules {
    package var map: ImpactMap?
    package var impact: ChangeImpact
    package var layout: PackageLayout
    /// Tests the user always runs (`--always-run`).
    package var alwaysRun: Set<String>
    /// Why there is no map (no history, another environment, no ancestor): the full run's reason.
    package var noMapReason: String
    /// A mangled name → the name a reader knows (the toolchain's demangler; identity without it).
    package var displayName: (String) -> String

    package init(map: ImpactMap?, impact: ChangeImpact, layout: PackageLayout, alwaysRun: Set<String> = [],
                 noMapReason: String = "no recorded impact map", displayName: @escaping (String) -> String = { $0 }) {
        self.map = map
        self.impact = impact
        self.layout = layout
        self.alwaysRun = alwaysRun
        self.noMapReason = noMapReason
        self.displayName = displayName
    }

    /// One decision per test of `tests` (the current test list), in its order.
    package func decide(_ tests: [String]) -> [TestDecision] {
        guard let map else { return tests.map { TestDecision(test: $0, run: true, reason: "full run: \(noMapReason)") } }
        if let full = impact.fullRun, case let .fullRun(why) = full.rule {
            return tests.map { TestDecision(test: $0, run: true, reason: "full run: \(why)") }
        }
        let recorded = Dictionary(map.tests.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let outside = Set(map.outsideTestFunctions)
        // What ran outside tests reaches every test: the first such change, if any.
        let everyTest = reasonFromFunctions(outside, map: map, outside: true) ?? reasonFromFiles(outside, map: map, outside: true)
        let reachedTargets = targetsReached()
        let knownTestTargets = Set(layout.targets.filter(\.isTest).map { Self.c99($0.name) })
        return tests.map { id in
            func run(_ reason: String) -> TestDecision { TestDecision(test: id, run: true, reason: reason) }
            if alwaysRun.contains(id) { return run("always run (--always-run)") }
            guard let test = recorded[id] else { return run("new test: not in the map recorded at \(map.commit.prefix(12))") }
            if ["failed", "crashed", "timed-out"].contains(test.outcome) { return run("it \(test.outcome == "timed-out" ? "timed out" : test.outcome) in the recorded run") }
            if test.outcome == "skipped" { return run("it was skipped in the recorded run (what it executes is not known)") }
            if !test.usable { return run("no usable coverage in the recorded run (its counts were lost)") }
            if let everyTest { return run(everyTest) }
            let functions = Set(test.functionIndexes)
            if let reason = reasonFromFunctions(functions, map: map, outside: false) ?? reasonFromFiles(functions, map: map, outside: false) {
                return run(reason)
            }
            if let target = Self.testTarget(of: id), let reason = reachedTargets[target] { return run(reason) }
            if let evidence = impact.targets.values.first, !knownTestTargets.contains(Self.testTarget(of: id) ?? "") {
                return run("declarations changed (\(evidence.place)) and the test's target is not in the package's layout")
            }
            return TestDecision(test: id, run: false, reason: "not affected by the change: " + skipDetail())
        }
    }

    func reasonFromFunctions(_ functions: Set<Int>, map: ImpactMap, outside: Bool) -> String? {
        guard let (index, evidence) = impact.functions.filter({ functions.contains($0.key) }).min(by: { $0.key < $1.key }) else { return nil }
        let name = displayName(map.functions[index].name)
        return outside ? "\(name) ran outside tests (setup, initialisers) and its body changed (\(evidence.place))"
            : "executed \(name), whose body changed (\(evidence.place))"
    }

    func reasonFromFiles(_ functions: Set<Int>, map: ImpactMap, outside: Bool) -> String? {
        guard !impact.files.isEmpty else { return nil }
        let files = Set(functions.compactMap { map.functions[$0].file < map.files.count ? map.files[map.functions[$0].file] : nil })
        guard let (_, evidence) = impact.files.filter({ files.contains($0.key) }).min(by: { $0.key < $1.key }) else { return nil }
        return outside ? "code of \(evidence.path) ran outside tests and the file changed outside function bodies (\(evidence.place))"
            : "executed code in \(evidence.path), which changed outside function bodies (\(evidence.place))"
    }

    /// Test target (c99 name, as test ids start) → the reason its tests all run.
    func targetsReached() -> [String: String] {
        var result: [String: String] = [:]
        for (changed, evidence) in impact.targets.sorted(by: { $0.key < $1.key }) {
            let what: String
            switch evidence.rule {
            case .header: what = "header or C declarations changed in \(changed)"
            case .resource: what = "resource of \(changed) changed"
            default: what = "declarations changed in \(changed)"
            }
            for test in layout.targets where test.isTest && depends(test.name, on: changed) {
                let key = Self.c99(test.name)
                if result[key] == nil {
                    result[key] = test.name == changed ? "\(what) (\(evidence.place))" : "\(what) (\(evidence.place)); \(test.name) depends on it"
                }
            }
        }
        return result
    }

    /// Whether `target` is `other` or depends on it, directly or not; an unknown dependency list counts as yes.
    func depends(_ target: String, on other: String) -> Bool {
        var seen: Set<String> = []
        var queue = [target]
        while let name = queue.popLast() {
            if name == other { return true }
            guard seen.insert(name).inserted else { continue }
            guard let found = layout.targets.first(where: { $0.name == name }) else { continue }
            guard let dependencies = found.dependencies else { return true }
            queue += dependencies
        }
        return false
    }

    func skipDetail() -> String {
        let reached = impact.functions.count + impact.files.count + impact.targets.count
        return reached == 0 ? "nothing it can see changed" : "it executed none of the changed code (\(reached) change\(reached == 1 ? "" : "s"))"
    }

    /// The test target of a test id (`ModuleTests.Class/test` → `ModuleTests`).
    static func testTarget(of id: String) -> String? {
        id.split(separator: ".", maxSplits: 1).first.map(String.init)
    }

    /// A target's name as a module name (SwiftPM replaces what is not an identifier character).
    static func c99(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }
}
