import Foundation
import XCTest

/// docs/shards.md's CI examples as a runner would read them: the YAML blocks parsed by PyYAML, each shard
/// job's script run for every index of the matrix (GitHub) or of `parallel:` (GitLab) in a copy of the Shapes
/// fixture with the built `testscope` on PATH, the artifacts they name checked, then the merge job's script run.
final class ShardExamplesTests: XCTestCase {
    private var workspace: URL!
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try TestscopeProcess.temporaryDirectory("shard-examples")
        workspace = try TestscopeProcess.fixtureCopy("Shapes")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// The n-th ```yaml block of docs/shards.md, as JSON values read by PyYAML.
    private func yamlBlock(_ index: Int) throws -> [String: Any] {
        let text = try String(contentsOf: TestscopeProcess.repoRoot.appendingPathComponent("docs/shards.md"), encoding: .utf8)
        let blocks = text.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        XCTAssertEqual(blocks.count, 2, "docs/shards.md has a GitHub Actions and a GitLab CI example")
        let file = scratch.appendingPathComponent("example-\(index).yml")
        try blocks[index].write(to: file, atomically: true, encoding: .utf8)
        let script = "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)"
        let json = try XCTUnwrap(try TestscopeProcess.output(of: ["python3", "-c", script, file.path]), "PyYAML could not parse block \(index)")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// Runs shell text with bash -e in the workspace, the built testscope first on PATH.
    private func shell(_ script: String, environment extra: [String: String] = [:]) throws -> (status: Int32, output: String) {
        var environment = extra
        environment["PATH"] = TestscopeProcess.binDirectory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let log = scratch.appendingPathComponent("step-\(UUID().uuidString).log")
        return try TestscopeProcess.runLogged(["bash", "-e", "-c", script], limit: 600, in: workspace, environment: environment, log: log)
    }

    /// The files a shell glob names in the workspace.
    private func expand(_ pattern: String, environment: [String: String] = [:]) throws -> [String] {
        try shell("shopt -s nullglob; for f in \(pattern); do echo \"$f\"; done", environment: environment).output
            .split(separator: "\n").map(String.init)
    }

    func testGitLabParallelShardsAndMerge() throws {
        let pipeline = try yamlBlock(1)
        let test = try XCTUnwrap(pipeline["test"] as? [String: Any]), merge = try XCTUnwrap(pipeline["coverage"] as? [String: Any])
        let total = try XCTUnwrap(test["parallel"] as? Int)
        XCTAssertGreaterThan(total, 1)
        for index in 1...total {
            let environment = ["CI_NODE_INDEX": "\(index)", "CI_NODE_TOTAL": "\(total)"]
            let result = try shell(try XCTUnwrap(test["script"] as? [String]).joined(separator: "\n"), environment: environment)
            XCTAssertEqual(result.status, 0, result.output)
            for path in try XCTUnwrap((test["artifacts"] as? [String: Any])?["paths"] as? [String]) {
                XCTAssertFalse(try expand(path.replacingOccurrences(of: "$CI_NODE_INDEX", with: "\(index)")).isEmpty, "artifact \(path) of job \(index)")
            }
        }
        let script = try XCTUnwrap(merge["script"] as? [String]).joined(separator: "\n")
        let result = try shell(script)
        XCTAssertEqual(result.status, 0, result.output)
        // The gate is the merged report's: above its total, the same job fails with 2.
        XCTAssertTrue(script.contains("--fail-under-lines 50"))
        let gated = try shell(script.replacingOccurrences(of: "--fail-under-lines 50", with: "--fail-under-lines 99.9"))
        XCTAssertEqual(gated.status, 2, gated.output)
        XCTAssertTrue(result.output.contains("merging \(total) shard(s)"), result.output)
        let reports = try XCTUnwrap((merge["artifacts"] as? [String: Any])?["reports"] as? [String: Any])
        let coverage = try XCTUnwrap((reports["coverage_report"] as? [String: Any])?["path"] as? String)
        for path in [try XCTUnwrap(reports["junit"] as? String), coverage] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.appendingPathComponent(path).path), path)
        }
    }

    func testGitHubActionsMatrixAndMergeJob() throws {
        let jobs = try XCTUnwrap(try yamlBlock(0)["jobs"] as? [String: Any])
        let test = try XCTUnwrap(jobs["test"] as? [String: Any]), report = try XCTUnwrap(jobs["report"] as? [String: Any])
        let shards = try XCTUnwrap(((test["strategy"] as? [String: Any])?["matrix"] as? [String: Any])?["shard"] as? [Int])
        XCTAssertEqual(shards, Array(1...shards.count))
        let steps = try XCTUnwrap(test["steps"] as? [[String: Any]])
        var binaryUpload: String?
        for shard in shards {
            func substituted(_ text: String) -> String { text.replacingOccurrences(of: "${{ matrix.shard }}", with: "\(shard)") }
            for step in steps {
                if let script = step["run"] as? String {
                    let result = try shell(substituted(script))
                    XCTAssertEqual(result.status, 0, result.output)
                }
                if let with = step["with"] as? [String: Any], let path = with["path"] as? String, let name = with["name"] as? String {
                    XCTAssertFalse(try expand(substituted(path)).isEmpty, "upload \(substituted(name)): \(path)")
                    if name == "test-binary" { binaryUpload = path }
                }
            }
        }
        // download-artifact: every shard-K artifact into its folder (already there), the binary into `bin`.
        let binary = try XCTUnwrap(try expand(try XCTUnwrap(binaryUpload)).first)
        try FileManager.default.createDirectory(at: workspace.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: workspace.appendingPathComponent(binary),
                                         to: workspace.appendingPathComponent("bin").appendingPathComponent(URL(fileURLWithPath: binary).lastPathComponent))
        var merged = 0
        for step in try XCTUnwrap(report["steps"] as? [[String: Any]]) {
            guard let script = step["run"] as? String else { continue }
            let result = try shell(script)
            XCTAssertEqual(result.status, 0, result.output)
            XCTAssertTrue(result.output.contains("merging \(shards.count) shard(s)"), result.output)
            merged += 1
        }
        XCTAssertEqual(merged, 1)
        for name in ["index.html", "junit.xml", "cobertura.xml", "summary.md"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.appendingPathComponent("merged/\(name)").path), name)
        }
    }
}
