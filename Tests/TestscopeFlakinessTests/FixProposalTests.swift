@testable import TestscopeFlakiness
import XCTest

/// Proposed fixes from written sources: the test's function found by its id, the donor's statements
/// without assertions, inserted at the start of the body in its indentation, as a unified diff.
/// (`git apply` takes the diffs: FixtureTests' FixVerificationTests, on the FlakyCauses corpus.)
final class FixProposalTests: XCTestCase {
    static let xctest = """
    import XCTest

    final class FlagTests: XCTestCase {
        func testA_menuWithoutLabs() { XCTAssertEqual(menuItems(), ["Home"]) }
        func testB_enableBeta() {
            FeatureFlags.beta = true
            XCTAssertEqual(menuItems().count, 2)
        }
        func testC_disableBeta() {
            FeatureFlags.beta = false  // back to the default
            XCTAssertEqual(menuItems().count,
                           1)
            try? store.reset(
                keys: ["a", "b"])
            let x = 1; cache
                .clear()
        }
        func testD_twoLines() {
            let menu = menuItems()
            XCTAssertEqual(menu, ["Home"])
        }
    }

    """

    func finding(_ id: String, _ classification: FlakyClassification) -> TestFinding {
        TestFinding(id: id, framework: .xctest, classification: classification, method: .inProcessOrder, verdicts: [.pass, .fail])
    }

    var files: TestFunctionSource.Files { .init(files: [("Tests/AppTests/FlagTests.swift", Self.xctest)]) }

    func testCleanerStatementsWithoutAssertionsGoToTheStartOfAOneLineVictim() throws {
        let cleaner = try XCTUnwrap(files.function(of: "AppTests.FlagTests/testC_disableBeta"))
        XCTAssertEqual(cleaner.statements(droppingAssertions: true),
                       [["FeatureFlags.beta = false"], ["try? store.reset(", "    keys: [\"a\", \"b\"])"], ["let x = 1"], ["cache", "    .clear()"]])
        var victim = finding("AppTests.FlagTests/testA_menuWithoutLabs", .odVictim)
        victim.cleaners = ["AppTests.FlagTests/testC_disableBeta"]
        let proposal = try XCTUnwrap(FixProposer(sources: files).proposal(for: victim))
        XCTAssertEqual(proposal.fix.source, .cleaner)
        XCTAssertEqual(proposal.fix.file, "Tests/AppTests/FlagTests.swift")
        XCTAssertEqual(proposal.fix.verification, .notRun)
        XCTAssertEqual(proposal.original, Self.xctest)
        XCTAssertTrue(proposal.patched.contains("""
                func testA_menuWithoutLabs() {
                    FeatureFlags.beta = false
                    try? store.reset(
                        keys: ["a", "b"])
                    let x = 1
                    cache
                        .clear()
                    XCTAssertEqual(menuItems(), ["Home"])
                }
                func testB_enableBeta() {
            """), proposal.patched)
        XCTAssertEqual(proposal.fix.diff, """
            --- a/Tests/AppTests/FlagTests.swift
            +++ b/Tests/AppTests/FlagTests.swift
            @@ -1,7 +1,15 @@
             import XCTest
             
             final class FlagTests: XCTestCase {
            -    func testA_menuWithoutLabs() { XCTAssertEqual(menuItems(), ["Home"]) }
            +    func testA_menuWithoutLabs() {
            +        FeatureFlags.beta = false
            +        try? store.reset(
            +            keys: ["a", "b"])
            +        let x = 1
            +        cache
            +            .clear()
            +        XCTAssertEqual(menuItems(), ["Home"])
            +    }
                 func testB_enableBeta() {
                     FeatureFlags.beta = true
                     XCTAssertEqual(menuItems().count, 2)

            """)
    }

    /// A body on its own lines: the statements go after the `{` line, in the body's indentation; the
    /// diff only adds lines.
    func testSetterStatementsGoAfterTheOpeningLineOfABrittleTest() throws {
        var brittle = finding("AppTests.FlagTests/testD_twoLines", .odBrittle)
        brittle.setterGroups = [["AppTests.FlagTests/testB_enableBeta"], ["AppTests.FlagTests/testC_disableBeta"]]
        let proposal = try XCTUnwrap(FixProposer(sources: files).proposal(for: brittle))
        XCTAssertEqual(proposal.fix.source, .setter)
        XCTAssertTrue(proposal.patched.contains("""
                func testD_twoLines() {
                    FeatureFlags.beta = true
                    let menu = menuItems()
            """), proposal.patched)
        let diffLines = proposal.fix.diff.split(separator: "\n")
        XCTAssertEqual(diffLines.filter { $0.hasPrefix("+") && !$0.hasPrefix("+++") }, ["+        FeatureFlags.beta = true"])
        XCTAssertTrue(diffLines.filter { $0.hasPrefix("-") && !$0.hasPrefix("---") }.isEmpty)
        XCTAssertEqual(diffLines[2], "@@ -16,6 +16,7 @@")
    }

    /// Without a cleaner, the first shared-state item's reset statement (`SharedStateSearch`'s answer).
    func testAVictimWithoutACleanerGetsTheSharedStatesReset() throws {
        var victim = finding("AppTests.FlagTests/testA_menuWithoutLabs", .odVictim)
        XCTAssertNil(FixProposer(sources: files).proposal(for: victim), "nothing to insert: no proposal")
        victim.sharedState = SharedStateFinding(items: [
            SharedStateItem(name: "FeatureFlags.beta", kind: .staticProperty, writeSites: [], readSites: [], resetStatement: "FeatureFlags.beta = false"),
            SharedStateItem(name: "Other.value", kind: .staticProperty, writeSites: [], readSites: [], resetStatement: "Other.value = 0"),
        ])
        let proposal = try XCTUnwrap(FixProposer(sources: files).proposal(for: victim))
        XCTAssertEqual(proposal.fix.source, .stateReset)
        XCTAssertTrue(proposal.patched.contains("    func testA_menuWithoutLabs() {\n        FeatureFlags.beta = false\n        XCTAssertEqual"), proposal.patched)
        XCTAssertFalse(proposal.patched.contains("Other.value"))
        // Not for NOD or stable tests, nor when the test's function is not in the sources.
        victim.classification = .nod
        XCTAssertNil(FixProposer(sources: files).proposal(for: victim))
        victim.classification = .odVictim
        victim.id = "AppTests.MissingTests/testA_menuWithoutLabs"
        XCTAssertNil(FixProposer(sources: files).proposal(for: victim))
    }

    /// Swift Testing: `Module.Suite/name()` in `@Suite struct Suite`, `Module/name()` a free `@Test`
    /// function; a file without a line break at its end says so in the diff.
    func testSwiftTestingFunctionsAreFoundInTheirSuiteOrAtTheTopLevel() throws {
        let text = """
            import Testing

            @Suite struct TallySuite {
                @Test func startsAtZero() { #expect(Tally.count == 0) }
                @Test("counts up") func increments() throws {
                    Tally.count += 1
                    #expect(Tally.count >= 1)
                    try #require(Tally.count > 0)
                }
            }

            func startsAtZero() {}
            @Test func freeStanding() async {
            \tawait check()
            }
            """
        let files = TestFunctionSource.Files(files: [("Tests/T/Tally.swift", text)])
        XCTAssertEqual(files.function(of: "T.TallySuite/increments()")?.statements(droppingAssertions: true), [["Tally.count += 1"]])
        XCTAssertEqual(files.function(of: "T.TallySuite/startsAtZero()")?.funcLine, 4)
        // Two `startsAtZero`, one in the suite: the suite's; at the top level only `@Test` ones count.
        XCTAssertEqual(files.function(of: "T/freeStanding()")?.statements(droppingAssertions: false), [["await check()"]])
        XCTAssertNil(files.function(of: "T/increments()"))
        var victim = finding("T.TallySuite/startsAtZero()", .odVictim)
        victim.sharedState = SharedStateFinding(items: [SharedStateItem(name: "Tally.count", kind: .staticProperty, writeSites: [],
                                                                        readSites: [], resetStatement: "Tally.count = 0")])
        let proposal = try XCTUnwrap(FixProposer(sources: files).proposal(for: victim))
        XCTAssertTrue(proposal.patched.contains("    @Test func startsAtZero() {\n        Tally.count = 0\n        #expect(Tally.count == 0)\n    }\n"),
                      proposal.patched)
        var free = finding("T/freeStanding()", .odVictim)
        free.sharedState = victim.sharedState
        let last = try XCTUnwrap(FixProposer(sources: files).proposal(for: free))
        XCTAssertTrue(last.patched.hasSuffix("async {\n\tTally.count = 0\n\tawait check()\n}"), last.patched)
        XCTAssertTrue(last.fix.diff.hasSuffix("\n }\n\\ No newline at end of file\n"), last.fix.diff)
    }
}
