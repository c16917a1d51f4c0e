import TestscopeCoverage
@testable import TestscopeImpact
import XCTest

/// The change rules on written old/new texts, through selection: which tests run, and the reason each gets.
final class ChangeRulesTests: XCTestCase {
    let fixture = ImpactFixture.standard

    func select(_ changes: [FileChange], executed: [String: [String]] = ImpactFixture.executed,
                outcomes: [String: String] = [:], lost: Set<String> = [], alwaysRun: Set<String> = [],
                tests: [String] = ImpactFixture.allTests) -> (ChangeImpact, [String: TestDecision]) {
        let map = fixture.map(executed: executed, outcomes: outcomes, lost: lost)
        let impact = ChangeAnalyzer(map: map, layout: fixture.layout).analyze(changes)
        let decisions = SelectionRules(map: map, impact: impact, layout: fixture.layout, alwaysRun: alwaysRun).decide(tests)
        return (impact, Dictionary(uniqueKeysWithValues: decisions.map { ($0.test, $0) }))
    }

    func selected(_ decisions: [String: TestDecision]) -> [String] { decisions.values.filter(\.run).map(\.test).sorted() }

    func edit(_ path: String, _ old: String, _ new: String) -> FileChange {
        let text = fixture.files[path]!
        XCTAssertTrue(text.contains(old), old)
        return fixture.change(path, to: text.replacingOccurrences(of: old, with: new))
    }

    func testBodyEditSelectsTheTestsThatExecutedTheFunction() {
        let (impact, decisions) = select([edit("Sources/Core/Counter.swift", "value += 1", "value += 2")])
        XCTAssertEqual(selected(decisions), ["CoreTests.CounterTests/testIncrement"])
        XCTAssertEqual(decisions["CoreTests.CounterTests/testIncrement"]?.reason, "executed increment, whose body changed (Sources/Core/Counter.swift:4)")
        XCTAssertEqual(decisions["CoreTests.CounterTests/testDoubled"]?.reason, "not affected by the change: it executed none of the changed code (1 change)")
        XCTAssertEqual(impact.changedLines["Sources/Core/Counter.swift"], [4])
    }

    func testAnEditInAClosureIsItsFunctionsBody() {
        let (_, decisions) = select([edit("Sources/Core/Greet.swift", "n * 2", "n * 3")])
        XCTAssertEqual(selected(decisions), ["CoreTests.GreetTests/testGreet"])
    }

    func testCommentsAndWhitespaceReachNoTest() {
        let (impact, decisions) = select([edit("Sources/Core/Counter.swift", "value += 1 // one step", "value  +=  1 /* one */")])
        XCTAssertEqual(selected(decisions), [])
        XCTAssertEqual(impact.noTest.map(\.rule), [.noTest("comments or whitespace only")])
        XCTAssertEqual(decisions["AppTests.AppTests/testApp"]?.reason, "not affected by the change: nothing it can see changed")
    }

    /// The map with the region Swift's coverage gives `value`'s initialiser (`…vpfi`, run by every init).
    func withInitializer(_ map: ImpactMap, name: String) -> ImpactMap {
        var map = map
        let tokens = SourceTokens.tokens(ImpactFixture.core, language: .swift)
        let zero = tokens.first { $0.text == "0" }!
        map.functions.append(.init(file: map.files.firstIndex(of: "Sources/Core/Counter.swift")!, name: name, start: zero.start, end: zero.end,
                                   checksum: SourceTokens.checksum(tokens, from: zero.start, to: zero.end)))
        return map
    }

    func testALiteralInAPropertyInitialiserReachesTheFilesTests() {
        let map = withInitializer(fixture.map(executed: ImpactFixture.executed), name: "$s4Core7CounterV5valueSivpfi")
        let impact = ChangeAnalyzer(map: map, layout: fixture.layout).analyze([edit("Sources/Core/Counter.swift", "public var value = 0", "public var value = 5")])
        let decisions = Dictionary(uniqueKeysWithValues: SelectionRules(map: map, impact: impact, layout: fixture.layout)
            .decide(ImpactFixture.allTests).map { ($0.test, $0) })
        XCTAssertEqual(impact.targets, [:], "only a literal changed: no declaration")
        XCTAssertEqual(selected(decisions), ["CoreTests.CounterTests/testDoubled", "CoreTests.CounterTests/testIncrement"])
        XCTAssertEqual(decisions["CoreTests.CounterTests/testDoubled"]?.reason,
                       "executed code in Sources/Core/Counter.swift, which changed outside function bodies (Sources/Core/Counter.swift:2)")
    }

    func testALiteralReadWithoutCodeOfTheFileRunningReachesEveryDependentTarget() {
        // A once-only initialiser (a global's, a static's) ran in whichever test came first.
        let once = withInitializer(fixture.map(executed: ImpactFixture.executed), name: "$s4Core7CounterV5valueSivpZWZ")
        let change = edit("Sources/Core/Counter.swift", "public var value = 0", "public var value = 5")
        XCTAssertEqual(ChangeAnalyzer(map: once, layout: fixture.layout).analyze([change]).targets["Core"]?.rule, .declaration(target: "Core"))
        // No function's region at all: an enum's raw value, a `#if compiler(>=6)`.
        let (impact, _) = select([change])
        XCTAssertEqual(impact.targets["Core"]?.rule, .declaration(target: "Core"))
    }

    func testADeclarationReachesEveryDependentTestTarget() {
        let (_, decisions) = select([edit("Sources/Core/Greet.swift", "public func greet", "public func hello() {}\npublic func greet")])
        // CoreTests and AppTests (App depends on Core); not CLibTests.
        XCTAssertEqual(selected(decisions), ["AppTests.AppTests/testApp", "CoreTests.CounterTests/testDoubled",
                                             "CoreTests.CounterTests/testIncrement", "CoreTests.GreetTests/testGreet"])
        XCTAssertEqual(decisions["AppTests.AppTests/testApp"]?.reason,
                       "declarations changed in Core (Sources/Core/Greet.swift:1); AppTests depends on it")
    }

    func testAnInlinableBodyIsAStructuralChange() {
        let (impact, decisions) = select([edit("Sources/Core/Counter.swift", "value * 3", "value * 4")])
        XCTAssertEqual(impact.functions, [:])
        XCTAssertEqual(Array(impact.files.keys), ["Sources/Core/Counter.swift"])
        XCTAssertEqual(selected(decisions), ["CoreTests.CounterTests/testDoubled", "CoreTests.CounterTests/testIncrement"])
    }

    /// Words in an inlinable body: still the file's tests, and no dependent target's (no declaration changed).
    func testAnInlinableBodyEditReachesTheFileNotTheDependents() {
        let (impact, decisions) = select([edit("Sources/Core/Counter.swift", "value * 3", "value * value")])
        XCTAssertEqual(impact.functions, [:])
        XCTAssertEqual(impact.targets.count, 0, "\(impact.targets)")
        XCTAssertEqual(selected(decisions), ["CoreTests.CounterTests/testDoubled", "CoreTests.CounterTests/testIncrement"])
        // A declaration added beside it still reaches every dependent target.
        let (added, _) = select([edit("Sources/Core/Counter.swift", "@inlinable public func tripled()", "public func once() {}\n@inlinable public func tripled()")])
        XCTAssertNotNil(added.targets["Core"])
    }

    /// Code the compiler does not see on this platform (a decidable `#if` branch that is not taken) reaches no
    /// test; a change to the taken branch, to the condition, or inside an undecidable `#if` is a change.
    func testCodeForAnotherPlatformReachesNoTest() {
        let os = ActiveCode.currentOS, other = os == "Windows" ? "Linux" : "Windows"
        let block = "#if os(\(other))\nimport WinSDK\n#endif\npublic func greet"
        let added = edit("Sources/Core/Greet.swift", "public func greet", block)
        let (impact, decisions) = select([added])
        XCTAssertEqual(selected(decisions), [], "\(impact)")
        let inactive = fixture.change("Sources/Core/Greet.swift", to: ImpactFixture.other.replacingOccurrences(of: "public func greet", with: block))
        var changed = inactive
        changed.oldText = inactive.newText
        changed.newText = inactive.newText!.replacingOccurrences(of: "import WinSDK", with: "import ucrt")
        XCTAssertEqual(selected(select([changed]).1), [])
        // The taken branch changed, or the condition: every dependent test, as any declaration change.
        var taken = changed
        taken.newText = inactive.newText!.replacingOccurrences(of: "#endif", with: "#else\nimport Foundation\n#endif")
        XCTAssertFalse(selected(select([taken]).1).isEmpty)
        var condition = changed
        condition.newText = inactive.newText!.replacingOccurrences(of: "os(\(other))", with: "os(\(os))")
        XCTAssertFalse(selected(select([condition]).1).isEmpty)
        var undecidable = changed
        undecidable.oldText = inactive.newText!.replacingOccurrences(of: "os(\(other))", with: "canImport(WinSDK)")
        undecidable.newText = undecidable.oldText!.replacingOccurrences(of: "import WinSDK", with: "import ucrt")
        XCTAssertFalse(selected(select([undecidable]).1).isEmpty)
    }

    func testConditionsAreEvaluatedOnlyWhenDecidable() {
        func value(_ text: String) -> Bool? {
            ActiveCode.evaluate(SourceTokens.tokens(text, language: .swift).map(\.text), os: "Linux", arch: "x86_64")
        }
        XCTAssertEqual(value("os(Linux)"), true)
        XCTAssertEqual(value("os(iOS) || os(macOS) || os(watchOS)"), false)
        XCTAssertEqual(value("!os(Windows) && (arch(x86_64) || arch(arm64))"), true)
        XCTAssertEqual(value("os(Linux) && !true"), false)
        XCTAssertNil(value("canImport(Darwin)"))
        XCTAssertNil(value("os(Linux) || swift(>=5.9)"))
        XCTAssertNil(value("DEBUG"))
        XCTAssertNil(value("os(Linux"))
    }

    func testAMapRecordedOnOtherTextIsNotTrustedForBodies() {
        var stale = fixture
        stale.files["Sources/Core/Counter.swift"] = ImpactFixture.core.replacingOccurrences(of: "value * 2", with: "value * 2 + 0")
        let map = stale.map(executed: ImpactFixture.executed)
        let impact = ChangeAnalyzer(map: map, layout: fixture.layout).analyze([edit("Sources/Core/Counter.swift", "value += 1", "value += 2")])
        XCTAssertEqual(impact.functions.count, 1, "increment's checksum still matches")
        let impact2 = ChangeAnalyzer(map: map, layout: fixture.layout).analyze([edit("Sources/Core/Counter.swift", "value * 2", "value * 5")])
        XCTAssertEqual(impact2.functions, [:], "doubled's recorded checksum is not the old text's")
        XCTAssertNotNil(impact2.files["Sources/Core/Counter.swift"])
    }

    func testCBodyHeaderAndFileLevelChanges() {
        let (_, body) = select([edit("Sources/CLib/clib.c", "x * scale", "x * scale + 1")])
        XCTAssertEqual(selected(body), ["CLibTests.CTests/testTwice"])
        let (_, fileLevel) = select([edit("Sources/CLib/clib.c", "scale = 2", "scale = 3")])
        XCTAssertEqual(selected(fileLevel), ["CLibTests.CTests/testTwice"])
        XCTAssertTrue(fileLevel["CLibTests.CTests/testTwice"]!.reason.contains("Sources/CLib/clib.c"))
        let (impact, header) = select([fixture.change("Sources/CLib/include/clib.h", to: "int twice(int x);\nint thrice(int x);\n")])
        XCTAssertEqual(impact.targets["CLib"]?.rule, .header(target: "CLib"))
        XCTAssertEqual(header["CLibTests.CTests/testTwice"]?.reason, "header or C declarations changed in CLib (Sources/CLib/include/clib.h:2); CLibTests depends on it")
    }

    func testResourcesManifestDocumentationAndFilesOutsideTargets() {
        let (_, resource) = select([fixture.change("Sources/Core/Resources/data.json", to: "{\"a\": 1}")])
        XCTAssertEqual(resource["AppTests.AppTests/testApp"]?.reason,
                       "resource of Core changed (Sources/Core/Resources/data.json); AppTests depends on it")
        XCTAssertFalse(resource["CLibTests.CTests/testTwice"]!.run)
        let (_, manifest) = select([fixture.change("Package.swift", to: "// swift-tools-version:6.0")])
        XCTAssertEqual(selected(manifest), ImpactFixture.allTests)
        XCTAssertEqual(manifest["AppTests.AppTests/testApp"]?.reason, "full run: Package.swift changed")
        let (_, docs) = select([fixture.change("README.md", to: "# P"), fixture.change(".github/workflows/ci.yml", to: "on: push"),
                                fixture.change("Sources/Core/Core.docc/Intro.md", to: "# Intro")])
        XCTAssertEqual(selected(docs), [])
        var withPlugin = fixture
        withPlugin.layout.targets.append(.init(name: "Gen", path: "Plugins/Gen", isTest: false, dependencies: [], isPlugin: true))
        let plugin = ChangeAnalyzer(map: withPlugin.map(executed: ImpactFixture.executed), layout: withPlugin.layout)
            .analyze([withPlugin.change("Plugins/Gen/plugin.swift", to: "let x = 1")])
        XCTAssertEqual(plugin.fullRun?.rule, .fullRun("Plugins/Gen/plugin.swift is in the package plugin Gen"))
        let (_, fixtures) = select([fixture.change("Tests/Fixtures/input.json", to: "[]")])
        XCTAssertEqual(fixtures["AppTests.AppTests/testApp"]?.reason, "full run: Tests/Fixtures/input.json is outside every target")
        let (_, script) = select([fixture.change("scripts/gen.sh", to: "echo")])
        XCTAssertEqual(script["AppTests.AppTests/testApp"]?.reason, "full run: scripts/gen.sh is outside every target")
    }

    func testAddedDeletedAndRenamedFiles() {
        let (added, _) = select([fixture.change("Sources/Core/New.swift", to: "extension Counter { public func reset() {} }")])
        XCTAssertEqual(added.targets["Core"]?.rule, .declaration(target: "Core"))
        XCTAssertEqual(added.changedLines["Sources/Core/New.swift"], [1])
        let (deleted, decisions) = select([fixture.change("Sources/Core/Greet.swift", to: nil)])
        XCTAssertNotNil(deleted.files["Sources/Core/Greet.swift"])
        XCTAssertTrue(decisions["AppTests.AppTests/testApp"]!.run)
        let renamed = FileChange(path: "Sources/Core/Hello.swift", kind: .renamed(from: "Sources/Core/Greet.swift"),
                                 oldText: ImpactFixture.other, newText: ImpactFixture.other)
        let (moved, _) = select([renamed])
        XCTAssertNotNil(moved.files["Sources/Core/Greet.swift"])
        XCTAssertEqual(moved.targets["Core"]?.rule, .declaration(target: "Core"))
    }

    func testAlwaysRunRules() {
        let tests = ImpactFixture.allTests + ["CoreTests.CounterTests/testNew"]
        let (_, skipped) = select([], outcomes: ["CoreTests.CounterTests/testDoubled": "skipped"])
        XCTAssertEqual(skipped["CoreTests.CounterTests/testDoubled"]?.reason, "it was skipped in the recorded run (what it executes is not known)")
        let (_, decisions) = select([], outcomes: ["CoreTests.CounterTests/testDoubled": "timed-out"], lost: ["CoreTests.GreetTests/testGreet"],
                                    alwaysRun: ["AppTests.AppTests/testApp"], tests: tests)
        XCTAssertEqual(decisions["CoreTests.CounterTests/testNew"]?.reason, "new test: not in the map recorded at c0ffee")
        XCTAssertEqual(decisions["CoreTests.CounterTests/testDoubled"]?.reason, "it timed out in the recorded run")
        XCTAssertEqual(decisions["CoreTests.GreetTests/testGreet"]?.reason, "no usable coverage in the recorded run (its counts were lost)")
        XCTAssertEqual(decisions["AppTests.AppTests/testApp"]?.reason, "always run (--always-run)")
        XCTAssertFalse(decisions["CoreTests.CounterTests/testIncrement"]!.run)
    }

    func testCodeRunOutsideTestsReachesEveryTest() {
        var executed = ImpactFixture.executed
        executed[""] = ["doubled"]
        let (_, decisions) = select([edit("Sources/Core/Counter.swift", "value * 2", "value * 5")], executed: executed)
        XCTAssertEqual(selected(decisions), ImpactFixture.allTests)
        XCTAssertEqual(decisions["CLibTests.CTests/testTwice"]?.reason,
                       "doubled ran outside tests (setup, initialisers) and its body changed (Sources/Core/Counter.swift:7)")
    }

    func testNoMapIsAFullRunWithTheReason() {
        let decisions = SelectionRules(map: nil, impact: ChangeImpact(), layout: fixture.layout, noMapReason: "no history").decide(["A.B/c"])
        XCTAssertEqual(decisions, [TestDecision(test: "A.B/c", run: true, reason: "full run: no history")])
    }
}
