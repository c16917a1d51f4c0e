import Foundation
import XCTest

/// docs/ci's GitHub Actions and GitLab CI examples, as a CI runner would read them: parsed as YAML (PyYAML),
/// their shell steps run against a copy of the Shapes fixture with the built `testscope` on PATH in place of
/// the install step, and every file their upload steps name checked to exist.
final class CIExamplesTests: XCTestCase {
    private var workspace: URL!
    private var scratch: URL!
    private static let docs = TestscopeProcess.repoRoot.appendingPathComponent("docs/ci")

    override func setUpWithError() throws {
        scratch = try TestscopeProcess.temporaryDirectory("ci-examples")
        workspace = try TestscopeProcess.fixtureCopy("Shapes")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// The YAML file as JSON values, read by PyYAML (`.ci/run` installs it).
    private func yaml(_ name: String) throws -> [String: Any] {
        let script = "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)"
        let json = try XCTUnwrap(try TestscopeProcess.output(of: ["python3", "-c", script, Self.docs.appendingPathComponent(name).path]),
                                 "python3 could not parse \(name) (is PyYAML installed?)")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// Runs a step's shell text with bash -e in the workspace, the built testscope first on PATH.
    private func shell(_ script: String, environment extra: [String: String]) throws -> (status: Int32, output: String) {
        var environment = extra
        environment["PATH"] = TestscopeProcess.binDirectory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let log = scratch.appendingPathComponent("step-\(UUID().uuidString).log")
        return try TestscopeProcess.runLogged(["bash", "-e", "-c", script], limit: 600, in: workspace, environment: environment, log: log)
    }

    private func assertExists(_ paths: [String], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(paths.isEmpty, "\(what) names no file", file: file, line: line)
        for path in paths {
            XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.appendingPathComponent(path).path), "\(what): \(path) missing", file: file, line: line)
        }
    }

    func testGitHubActionsWorkflowRunsAndUploadsWhatItWrote() throws {
        let jobs = try XCTUnwrap(try yaml("github-actions.yml")["jobs"] as? [String: Any])
        let job = try XCTUnwrap(jobs["test"] as? [String: Any])
        let steps = try XCTUnwrap(job["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.filter { $0["name"] as? String == "Install Testscope" }.count, 1, "the install step is named \"Install Testscope\"")
        var environment = (job["env"] as? [String: String]) ?? [:]
        let summary = scratch.appendingPathComponent("step-summary.md")
        _ = FileManager.default.createFile(atPath: summary.path, contents: nil)
        environment["GITHUB_ACTIONS"] = "true"
        environment["GITHUB_STEP_SUMMARY"] = summary.path
        var ran = 0
        for step in steps {
            guard let script = step["run"] as? String, step["name"] as? String != "Install Testscope" else { continue }
            let result = try shell(script, environment: environment)
            XCTAssertEqual(result.status, 0, "step \(step["name"] ?? script): \(result.output)")
            ran += 1
        }
        XCTAssertGreaterThan(ran, 0, "no run step besides the install")
        let uploads = steps.filter { ($0["uses"] as? String)?.hasPrefix("actions/upload-artifact@") == true }
        XCTAssertGreaterThanOrEqual(uploads.count, 1)
        for upload in uploads {
            let paths = ((upload["with"] as? [String: Any])?["path"] as? String ?? "").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            assertExists(paths.filter { !$0.isEmpty }, "upload \(upload["name"] ?? "")")
        }
        // The step summary is automatic under GITHUB_ACTIONS=true.
        let markdown = try String(contentsOf: summary, encoding: .utf8)
        XCTAssertTrue(markdown.contains("passed"), "step summary: \(markdown)")
    }

    func testGitLabJobRunsReadsItsCoverageAndKeepsWhatItWrote() throws {
        let job = try XCTUnwrap(try yaml("gitlab-ci.yml")["test"] as? [String: Any])
        let script = try XCTUnwrap(job["script"] as? [String])
        XCTAssertNotNil(job["before_script"], "the install is the before_script")
        let result = try shell(script.joined(separator: "\n"), environment: (job["variables"] as? [String: String]) ?? [:])
        XCTAssertEqual(result.status, 0, result.output)

        // GitLab reads the job's coverage with the `coverage:` pattern: it must find the total line percentage.
        let pattern = try XCTUnwrap(job["coverage"] as? String)
        XCTAssertTrue(pattern.hasPrefix("/") && pattern.hasSuffix("/"), pattern)
        let regex = try NSRegularExpression(pattern: String(pattern.dropFirst().dropLast()), options: .anchorsMatchLines)
        let log = result.output as NSString
        let match = try XCTUnwrap(regex.firstMatch(in: result.output, range: NSRange(location: 0, length: log.length)), "no match in\n\(result.output)")
        let percent = try XCTUnwrap(Double(log.substring(with: match.range(at: 1))))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: workspace.appendingPathComponent(".testscope/coverage.json"))) as? [String: Any])
        let lines = try XCTUnwrap((json["totals"] as? [String: [String: Any]])?["lines"])
        let reported = try XCTUnwrap((lines["percent"] as? NSNumber)?.doubleValue)
        XCTAssertEqual(percent, (reported * 100).rounded() / 100, "the log's figure is the report's total")

        let artifacts = try XCTUnwrap(job["artifacts"] as? [String: Any])
        let junit = try XCTUnwrap((artifacts["reports"] as? [String: Any])?["junit"] as? String)
        assertExists([junit], "reports: junit")
        assertExists((artifacts["paths"] as? [String]) ?? [], "artifacts: paths")
    }

    /// docs/ci's impact-analysis jobs: the record command (main) then, after a commit that edits one function
    /// body, the selecting command (a pull/merge request), both as written, in a git repository of the fixture
    /// with the history file in the checkout as a CI cache leaves it (untracked: it must not count as a change).
    func testImpactExamplesRecordOnMainAndRunTheAffectedTestsOfAChange() throws {
        let github = try XCTUnwrap(try yaml("github-actions-affected.yml")["jobs"] as? [String: Any])
        let githubSteps = try XCTUnwrap((github["test"] as? [String: Any])?["steps"] as? [[String: Any]])
        func step(_ event: String) throws -> String {
            try XCTUnwrap(githubSteps.first { ($0["if"] as? String)?.contains("'\(event)'") == true && $0["run"] != nil }?["run"] as? String, event)
        }
        let gitlab = try yaml("gitlab-ci-affected.yml")
        let gitlabScripts = try ["record-impact", "test-affected"].map { name in
            try XCTUnwrap(((gitlab[name] as? [String: Any])?["script"] as? [String])?.joined(separator: "\n"), name)
        }
        let shape = workspace.appendingPathComponent("Sources/Shapes/Shape.swift")
        let original = try String(contentsOf: shape, encoding: .utf8)
        for (record, select) in [(try step("push"), try step("pull_request")), (gitlabScripts[0], gitlabScripts[1])] {
            XCTAssertTrue(select.contains("--affected"), select)
            try original.write(to: shape, atomically: true, encoding: .utf8)
            for path in ["testscope-history.sqlite", ".testscope", ".git"] { try? FileManager.default.removeItem(at: workspace.appendingPathComponent(path)) }
            let git = "git -c user.name=t -c user.email=t@t -c commit.gpgsign=false"
            XCTAssertEqual(try shell("git init -q && \(git) add -A && \(git) commit -q -m base", environment: [:]).status, 0)
            let recorded = try shell(record, environment: [:])
            XCTAssertEqual(recorded.status, 0, recorded.output)
            let edit = "sed -i 's/guard rect.width >= 0 else/guard rect.width >= 0.0 else/' Sources/Shapes/Shape.swift && \(git) commit -q -am edit"
            XCTAssertEqual(try shell(edit, environment: [:]).status, 0)
            let selected = try shell(select, environment: [:])
            XCTAssertEqual(selected.status, 0, selected.output)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.appendingPathComponent(".testscope/tests.json"))) as? [String: Any])
            let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
            let skipped = tests.filter { $0["skipReason"] as? String == "not affected by the change" }
            XCTAssertFalse(skipped.isEmpty, selected.output)
            XCTAssertLessThan(skipped.count, tests.count, selected.output)
            XCTAssertTrue(selected.output.contains("skipped: not affected by the change (saved about"), selected.output)
        }
    }
}
