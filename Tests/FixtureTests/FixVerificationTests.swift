import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeKit
import TestscopeReports
import XCTest

/// Proposed fixes verified by a rerun on the FlakyCauses corpus (sample-profiles/packages/FlakyCauses,
/// truth.json): real builds of a copy of the package, real reruns of the failing order, the diffs
/// checked with `git apply` and `patch -p1`. Each test builds the copy once.
final class FixVerificationTests: XCTestCase {
    static let package = FlakyFixture.repoRoot.appendingPathComponent("sample-profiles/packages/FlakyCauses")
    static let testFile = "Tests/FlakyCausesTests/OrderDependentTests.swift"

    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    /// truth.json: the order-dependent pairs, and the classes of the NOD tests (left out of the runs).
    static func truth() throws -> (pairs: [(test: String, kind: String, cleaner: String?, fixable: Bool, outside: Bool)], nodClasses: [String]) {
        let data = try Data(contentsOf: package.appendingPathComponent("truth.json"))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let pairs = try XCTUnwrap(json["pairs"] as? [[String: Any]]).map {
            ($0["test"] as! String, $0["kind"] as! String, $0["cleaner"] as? String, $0["fixable"] as! Bool, $0["outsideProcess"] as! Bool)
        }
        let nod = try XCTUnwrap(json["nod"] as? [[String: Any]]).map { TestIdentity.classAndName(of: $0["test"] as! String).className }
        return (pairs, Array(Set(nod.map { String($0.split(separator: ".").last!) })).sorted())
    }

    /// The package's test sources, to check that they are untouched.
    static func sources() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: package.appendingPathComponent("Tests/FlakyCausesTests").path) {
            files[name] = try Data(contentsOf: package.appendingPathComponent("Tests/FlakyCausesTests/\(name)"))
        }
        return files
    }

    /// `testscope flaky --skip <the NOD tests> --seed 3 --runs 4 --verify-fixes` on the corpus: every
    /// fixable pair (a cleaner or one resettable item) gets a fix verified 3 of 3 — the cleaner's statements,
    /// the setter's for the brittle test, else the shared state's reset — and the pair whose state is a file
    /// none. Shown in flaky.json and flaky.html, each diff applies with `git apply` and `patch -p1`; the
    /// package is untouched, the copy gone.
    func testTheCorpusFixesAreVerified() throws {
        let truth = try Self.truth()
        XCTAssertEqual(truth.pairs.count, 8)
        let before = try Self.sources()
        var request = FlakyRequest(packageRoot: Self.package, settings: ReportSettings(formats: [.json, .html, .text], output: output))
        request.selection.skips = [truth.nodClasses.joined(separator: "|")]
        (request.seed, request.runs, request.jobs, request.verifyFixes) = (3, 4, 2, true)
        let pipeline = Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console))
        let outcome = try pipeline.flaky(request)
        let findings = try XCTUnwrap(outcome.flaky?.findings)
        var verified: [String] = []
        for pair in truth.pairs {
            let finding = try XCTUnwrap(findings.first { $0.id == pair.test }, "\(pair.test): \(console.outputText)")
            XCTAssertEqual(finding.classification.rawValue, pair.kind, pair.test)
            if finding.fix?.verification == .verified(runs: 3) { verified.append(pair.test) }
            if pair.outside { XCTAssertNil(finding.fix, "\(pair.test): its state is a file, outside the process") }
            guard pair.fixable else { continue }
            let fix = try XCTUnwrap(finding.fix, "\(pair.test) has a proposed fix")
            XCTAssertEqual(fix.source, pair.kind == "od-brittle" ? .setter : pair.cleaner != nil ? .cleaner : .stateReset, pair.test)
            let name = TestIdentity.classAndName(of: pair.test).name.prefix { $0 != "(" }
            XCTAssertTrue(try String(contentsOf: Self.package.appendingPathComponent(fix.file), encoding: .utf8).contains("func \(name)("), fix.file)
            XCTAssertTrue(fix.diff.contains("-    ") && fix.diff.contains("func \(name)() {\n"), "the test's own function is patched: \(fix.diff)")
            XCTAssertEqual(fix.verification, .verified(runs: 3), "\(pair.test): \(console.diagnosticsText)")
        }
        // Issue 42's bar is half of the fixable pairs; with the shared-state search all of them are.
        XCTAssertEqual(Set(verified), Set(truth.pairs.filter(\.fixable).map(\.test)))
        let proposed = findings.filter { $0.fix != nil }.count
        XCTAssertGreaterThan(try XCTUnwrap(outcome.flaky).fixSeconds, 0)
        XCTAssertTrue(console.diagnosticsText.contains("testscope: verifying \(proposed) fix(es): building a copy of the package"), console.diagnosticsText)
        XCTAssertTrue(console.diagnosticsText.contains("testscope: fix \(proposed)/\(proposed) "), console.diagnosticsText)
        XCTAssertTrue(console.outputText.contains("    fix: cleaner's statements at the start of testA_menuWithoutLabs — verified (3 of 3 passed)\n"),
                      console.outputText)

        // The package untouched; the copy and the work folder gone.
        XCTAssertEqual(try Self.sources(), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("flaky-work").path))

        // The reports.
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("flaky.json"))) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        let shownFixes = tests.compactMap { $0["fix"] as? [String: Any] }
        XCTAssertEqual(shownFixes.count, proposed)
        XCTAssertEqual(shownFixes.filter { $0["verification"] as? String == "verified" }.count, verified.count)
        let html = try String(contentsOf: output.appendingPathComponent("flaky.html"), encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<pre class=\"fl-diff\">").count - 1, proposed)
        XCTAssertTrue(html.contains("+        FeatureFlags.beta = false\n"), "the cleaner's statement in the diff")

        // Each diff, as the user would apply it: `git apply` and `patch -p1` in a copy of the package's file.
        for fix in shownFixes {
            let (diff, file) = (try XCTUnwrap(fix["diff"] as? String), try XCTUnwrap(fix["file"] as? String))
            let folder = output.appendingPathComponent("apply-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(file).deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Self.package.appendingPathComponent(file), to: folder.appendingPathComponent(file))
            try diff.write(to: folder.appendingPathComponent("fix.diff"), atomically: true, encoding: .utf8)
            let git = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/git"), ["apply", "--check", "fix.diff"], currentDirectory: folder,
                                            environment: ["PATH": "/usr/bin:/bin", "GIT_CEILING_DIRECTORIES": folder.deletingLastPathComponent().path])
            XCTAssertEqual(git.status, 0, "git apply --check: \(git.stderrText)\n\(diff)")
            let patch = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/patch"), ["-p1", "--forward", "-i", "fix.diff"], currentDirectory: folder)
            XCTAssertEqual(patch.status, 0, "patch -p1: \(patch.stdoutText) \(patch.stderrText)\n\(diff)")
            let patched = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let added = diff.split(separator: "\n").filter { $0.hasPrefix("+") && !$0.hasPrefix("+++") }.map { String($0.dropFirst()) }
            XCTAssertTrue(patched.contains(added.joined(separator: "\n")), "the added lines, together: \(patched)")
        }
    }

    func victim(_ id: String, polluter: String, reset: String) -> TestFinding {
        var finding = TestFinding(id: "FlakyCausesTests." + id, framework: .xctest, classification: .odVictim, method: .inProcessOrder,
                                  verdicts: [.pass, .fail])
        finding.polluterGroups = [["FlakyCausesTests." + polluter]]
        finding.failingOrder = ["FlakyCausesTests." + polluter, finding.id]
        finding.sharedState = SharedStateFinding(items: [SharedStateItem(name: "state", kind: .global, writeSites: [], readSites: [],
                                                                         resetStatement: reset)])
        return finding
    }

    /// Verifies the proposals of `findings` (all state resets) on a copy of the corpus: the package is
    /// untouched and the copy removed.
    func verify(_ findings: [TestFinding]) throws -> (verified: [Int: ProposedFix.Verification], lines: [String]) {
        let before = try Self.sources()
        let proposals = FixProposer(sources: .read(packageRoot: Self.package)).proposals(for: findings)
        XCTAssertEqual(proposals.keys.sorted(), Array(findings.indices))
        XCTAssertTrue(proposals.values.allSatisfy { $0.fix.source == .stateReset })
        let work = output.appendingPathComponent("flaky-work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var lines: [String] = []
        let verified = try FixVerifier(swift: FlakyFixture.swift, packageRoot: Self.package, workFolder: work)
            .verify(proposals, findings: findings) { lines.append($0) }
        XCTAssertEqual(try Self.sources(), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("fix-copy").path))
        return (verified, lines)
    }

    /// A patch that does not fix is never verified, even when it shares its build with one that does:
    /// the reset of the state the victim depends on (`retryLimit = 3`, the shared-state search's kind of
    /// answer) is verified, an unrelated statement is not (the order still fails 3 of 3).
    func testANoOpPatchIsNotVerifiedBesideOneThatIs() throws {
        let (verified, lines) = try verify([
            victim("RetryTests/testA_defaultAttempts", polluter: "RetryTests/testB_aggressiveRetries", reset: "retryLimit = 3"),
            victim("FlagTests/testA_menuWithoutLabs", polluter: "FlagTests/testB_enableBeta", reset: "_ = menuItems()"),
        ])
        XCTAssertEqual(verified[0], .verified(runs: 3))
        XCTAssertEqual(verified[1], .notVerified("the failing order still fails (3 of 3)"))
        XCTAssertEqual(lines, ["verifying 2 fix(es): building a copy of the package",
                               "fix 1/2 FlakyCausesTests.RetryTests/testA_defaultAttempts: verified (3 of 3 passed)",
                               "fix 2/2 FlakyCausesTests.FlagTests/testA_menuWithoutLabs: not verified: the failing order still fails (3 of 3)"])
    }

    /// A patch that does not compile is not verified (the build's first error, in the copy's relative
    /// path), and does not sink the others: when the patches do not build together, each builds alone.
    func testAPatchThatDoesNotBuildIsNotVerifiedAndTheOthersStillAre() throws {
        let (verified, lines) = try verify([
            victim("AppRegistryTests/testStartsWithoutPlugins", polluter: "PluginTests/testA_registersPlugin", reset: "PluginRegistry.shared.forget()"),
            victim("RetryTests/testA_defaultAttempts", polluter: "RetryTests/testB_aggressiveRetries", reset: "retryLimit = 3"),
        ])
        guard case let .notVerified(why) = verified[0] else { return XCTFail("a patch that does not build is not verified: \(String(describing: verified[0]))") }
        XCTAssertTrue(why.hasPrefix("the build failed: \(Self.testFile):"), why)
        XCTAssertTrue(why.contains("error: ") && why.contains("forget"), why)
        XCTAssertEqual(verified[1], .verified(runs: 3))
        XCTAssertEqual(lines.count, 3, "\(lines)")
    }
}
