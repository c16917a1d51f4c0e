import TestscopeExecution
import TestscopeFlakiness
import TestscopeRun
import XCTest

/// Orders: stable hashing, subset stability (bisection relies on it), the run plan, seeds and order files.
final class OrderPlanTests: XCTestCase {
    let tests = [
        "M.A/test1", "M.A/test2", "M.A/test3", "M.B/test1", "M.B/test2", "M.C/testX",
        "M.Suite/f()", "M.Suite/g()", "M.free()",
    ]

    func testHashIsStableAcrossProcessesAndSeeds() {
        // Fixed values: a change would silently break replaying seeds printed by earlier versions.
        XCTAssertEqual(StableHash.hash(seed: 0, ""), StableHash.mix(0xa8c7_f832_281a_39c5))
        XCTAssertEqual(StableHash.hash(seed: 42, "M.A/test1"), StableHash.hash(seed: 42, "M.A/test1"))
        XCTAssertNotEqual(StableHash.hash(seed: 42, "M.A/test1"), StableHash.hash(seed: 43, "M.A/test1"))
        XCTAssertNotEqual(StableHash.hash(seed: 42, "M.A/test1"), StableHash.hash(seed: 42, "M.A/test2"))
    }

    func testShufflesKeepTheRelativeOrderOfAnySubset() {
        for seed: UInt64 in [0, 1, 7, 123_456_789] {
            let all = OrderPlan.methodShuffle(tests, seed: seed)
            let classLevel = OrderPlan.classShuffle(tests, seed: seed)
            for mask in [0b1_0101_0101, 0b0_1100_0011, 0b1_1111_0000, 0b0_0000_0110] {
                let subset = tests.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
                XCTAssertEqual(OrderPlan.methodShuffle(subset.reversed(), seed: seed), all.filter(subset.contains), "seed \(seed)")
                XCTAssertEqual(OrderPlan.classShuffle(subset, seed: seed), classLevel.filter(subset.contains), "seed \(seed)")
            }
        }
    }

    func testClassShufflesKeepClassesContiguousAndMethodShufflesInterleave() {
        var interleaved = false
        for seed: UInt64 in 0..<20 {
            let order = OrderPlan.classShuffle(tests, seed: seed)
            XCTAssertEqual(Set(order), Set(tests))
            let groups = order.map(TestIdentity.group(of:))
            var closed = Set<String>()
            for (i, group) in groups.enumerated() where i > 0 && groups[i - 1] != group {
                XCTAssertFalse(closed.contains(group), "\(group) split in \(order)")
                closed.insert(groups[i - 1])
            }
            let methodGroups = OrderPlan.methodShuffle(tests, seed: seed).map(TestIdentity.group(of:))
            var changes = 0
            for i in 1..<methodGroups.count where methodGroups[i] != methodGroups[i - 1] { changes += 1 }
            if changes > Set(methodGroups).count - 1 { interleaved = true }
        }
        XCTAssertTrue(interleaved, "method-level shuffles interleave the methods of different classes")
    }

    func testPlanBaselineReverseThenAlternatingShuffles() {
        let plan = OrderPlan(seed: 99, defaultOrder: tests)
        let orders = plan.orders(count: 6)
        XCTAssertEqual(orders.map(\.kind), [.default, .reverse, .classShuffle, .methodShuffle, .classShuffle, .methodShuffle])
        XCTAssertEqual(orders[0].tests, tests)
        XCTAssertEqual(orders[1].tests, tests.reversed())
        XCTAssertNil(orders[0].runSeed)
        XCTAssertEqual(Set(orders.compactMap(\.runSeed)).count, 4, "each shuffle has its own seed")
        // The same seed gives the same plan; another seed another one.
        XCTAssertEqual(OrderPlan(seed: 99, defaultOrder: tests).orders(count: 6), orders)
        XCTAssertNotEqual(OrderPlan(seed: 100, defaultOrder: tests).order(3).tests, orders[3].tests)
        // Run k does not depend on how many runs the plan has.
        XCTAssertEqual(OrderPlan(seed: 99, defaultOrder: tests).order(5), orders[5])
    }

    func testSeedsAreCheckedNotReplaced() throws {
        XCTAssertEqual(try OrderPlan.parseSeed("1234"), 1234)
        XCTAssertEqual(try OrderPlan.parseSeed("9007199254740991"), OrderPlan.maximumSeed)
        for bad in ["", "abc", "-1", "12a", "1.5", "0x10", "9007199254740992", "99999999999999999999999"] {
            XCTAssertThrowsError(try OrderPlan.parseSeed(bad), bad) { error in
                XCTAssertEqual(error as? FlakinessError, .malformedSeed(bad))
            }
        }
        XCTAssertLessThanOrEqual(OrderPlan.randomSeed(), OrderPlan.maximumSeed)
    }

    func testOrderFilesAndValidation() throws {
        XCTAssertEqual(OrderFile.parse("# a comment\nM.A/test1\n\n  M.B/test2  \r\nM.free()\n"), ["M.A/test1", "M.B/test2", "M.free()"])
        XCTAssertEqual(OrderFile.parse(OrderFile.text(tests)), tests)
        let known = Set(tests)
        XCTAssertNoThrow(try OrderFile.validate(["M.B/test1", "M.A/test1"], known: known, source: "--order"))
        XCTAssertThrowsError(try OrderFile.validate([], known: known, source: "x.txt"))
        XCTAssertThrowsError(try OrderFile.validate(["M.Nope/test"], known: known, source: "x.txt")) { error in
            XCTAssertTrue(error.localizedDescription.contains("'M.Nope/test' is not a test"), error.localizedDescription)
        }
        XCTAssertThrowsError(try OrderFile.validate(["M.A/test1", "M.A/test1"], known: known, source: "x.txt"))
        let missing = URL(fileURLWithPath: "/nonexistent/order.txt")
        XCTAssertThrowsError(try OrderFile.read(missing)) { error in
            guard case .unreadableOrderFile(let path, _)? = error as? FlakinessError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, missing.path)
        }
    }

    func testIdentityHelpers() {
        XCTAssertEqual(TestIdentity.group(of: "Mod.Class/testA"), "Mod.Class")
        XCTAssertEqual(TestIdentity.group(of: "Mod.Outer/Inner/f()"), "Mod.Outer/Inner")
        XCTAssertEqual(TestIdentity.group(of: "Mod.free()"), "Mod")
        XCTAssertEqual(TestIdentity.group(of: "Mod.Class/test<b>a</b>"), "Mod.Class")
        XCTAssertEqual(TestIdentity.classAndName(of: "Mod.Class/test<b>a</b>").name, "test<b>a</b>")
        XCTAssertEqual(TestIdentity.classAndName(of: "Mod.Outer/Inner/f(a:)").className, "Mod.Outer.Inner")
        XCTAssertEqual(TestIdentity.classAndName(of: "Mod.Outer/`a/b`(x:)").name, "`a/b`(x:)")
        XCTAssertEqual(TestIdentity.classAndName(of: "Mod.free()").className, "Mod")
        XCTAssertEqual(TestIdentity.xctestKey(of: "Mod.Class/testA"), "Class.testA")
        XCTAssertEqual(EntryPointSource.discoveredTestsModule(packageName: "my-pkg"), "my_pkgPackageDiscoveredTests")
        XCTAssertEqual(EntryPointSource.discoveredTestsModule(packageName: "9lives"), "_9livesPackageDiscoveredTests")
    }

    func testSwiftTestingSerialOrderFromTheRecordedListStream() throws {
        let recorded = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("sample-profiles/recorded/Flaky")
        let stream = try String(contentsOf: recorded.appendingPathComponent("swift-testing-list.jsonl"), encoding: .utf8)
        let ranks = SwiftTestingOrder.ranks(fromListStream: stream)
        // CounterSuite (line 7) with its tests at lines 9 and 14, then the free functions at lines 21 and 26.
        XCTAssertEqual(ranks.sorted { $0.value < $1.value }.map(\.key), [
            "FlakyTests.CounterSuite/countStartsAtZero()", "FlakyTests.CounterSuite/incrementsTheCount()",
            "FlakyTests.freeFunctionIsStable()", "FlakyTests.onTheMainActor()",
        ])
        let a = "FlakyTests.CounterSuite/countStartsAtZero()", b = "FlakyTests.CounterSuite/incrementsTheCount()"
        let free = "FlakyTests.freeFunctionIsStable()", xc = "FlakyTests.MathTests/testAdds"
        XCTAssertEqual(SwiftTestingOrder.batchedLines([a, b, free], ranks: ranks), ["\(a)\t\(b)\t\(free)"])
        XCTAssertEqual(SwiftTestingOrder.batchedLines([b, a, xc, free, "Other.x()"], ranks: ranks), [b, a, xc, free, "Other.x()"])
        // Shuffles keep a Swift Testing suite together in that order (one call of its entry point);
        // method-level shuffles place the suite among the XCTest methods, and stay subset-stable.
        let xc2 = "FlakyTests.MathTests/testAddsNegatives", xc3 = "FlakyTests.CacheTests/testA_lookupStartsEmpty"
        let tests = [xc, xc2, xc3, a, b, free]
        var placements = Set<Int>()
        for seed: UInt64 in 0..<20 {
            for order in [OrderPlan.classShuffle(tests, seed: seed, fixed: ranks), OrderPlan.methodShuffle(tests, seed: seed, fixed: ranks)] {
                XCTAssertEqual(Set(order), Set(tests))
                XCTAssertEqual(order.firstIndex(of: b)!, order.firstIndex(of: a)! + 1, "\(order)")
            }
            let order = OrderPlan.methodShuffle(tests, seed: seed, fixed: ranks)
            placements.insert(order.firstIndex(of: a)!)
            let subset = [xc3, b, a]
            XCTAssertEqual(OrderPlan.methodShuffle(subset, seed: seed, fixed: ranks), order.filter(subset.contains))
        }
        XCTAssertGreaterThan(placements.count, 2, "the suite moves among the XCTest methods")
        XCTAssertNotEqual(Set((0..<20).map { OrderPlan.methodShuffle(tests, seed: $0).firstIndex(of: b)! < OrderPlan.methodShuffle(tests, seed: $0).firstIndex(of: a)! }).count, 1,
                          "without ranks each test is shuffled on its own")
    }

    func testReproductionCommandsAreQuotedForTheShell() {
        let r = Reproduction(testscopePrefix: "testscope flaky --package-path pkg", binaryPath: "pkg/.build/testscope/debug/P.xctest")
        XCTAssertEqual(r.testscope(order: ["M.A/test1", "M.B/test2"]), "testscope flaky --package-path pkg --order M.A/test1,M.B/test2")
        XCTAssertEqual(r.testscope(order: ["M.S/f()"], repeat: 10), "testscope flaky --package-path pkg --order 'M.S/f()' --repeat 10")
        XCTAssertEqual(r.binary(order: ["M.A/it's"]), "TESTSCOPE_ORDER='M.A/it'\\''s' pkg/.build/testscope/debug/P.xctest")
    }
}
