import Foundation
import XCTest

/// `testscope run` on the fixture packages: a real `swift test`, real llvm tools. (`report` of a real build's
/// profiles, in-process: FixtureTests' ReportOfRealBuildTests.)
final class RunCommandTests: XCTestCase {
    var output: URL!

    override func setUpWithError() throws { output = try TestscopeProcess.temporaryDirectory("run") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    func package(_ name: String) -> URL { TestscopeProcess.samples.appendingPathComponent("packages/\(name)") }

    func coverageJSON() throws -> [String: Any] {
        let data = try Data(contentsOf: output.appendingPathComponent("coverage.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `llvm-cov show` of the profile and binary this run produced, as line → printed count per file.
    func showCounts(binary: URL) throws -> [String: [Int: String]] {
        let swiftPath = try XCTUnwrap(ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) })
        let tool = swiftPath.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("llvm-cov")
        let process = Process()
        process.executableURL = tool
        process.arguments = ["show", binary.path, "-instr-profile", output.appendingPathComponent("default.profdata").path, "-use-color=false"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        var files: [String: [Int: String]] = [:]
        var current: String?
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("/") && line.hasSuffix(":") { current = String(line.dropLast()); files[current!] = [:]; continue }
            let columns = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard let current, columns.count == 3, let n = Int(columns[0].trimmingCharacters(in: .whitespaces)) else { continue }
            files[current]![n] = columns[1].trimmingCharacters(in: .whitespaces)
        }
        return files
    }

    static func formatCount(_ n: UInt64) -> String {
        let s = String(n)
        if s.count <= 3 { return s }
        let i = s.count % 3 == 0 ? 3 : s.count % 3
        var r = String(s.prefix(i))
        if i != 3 { r += "." + s.dropFirst(i).prefix(3 - i) }
        return r + String(Array(" kMGTPEZY")[(s.count - 1) / 3])
    }

    func testRunOnPassingPackageWritesReportsThatMatchLLVMCovShow() throws {
        let pkg = package("Shapes")
        // The test binary has Testscope's entry point (the build `flaky` and per-test coverage share): its
        // switches, left in the caller's environment, must not turn the run into an order or a per-test run.
        let stray = try TestscopeProcess.temporaryDirectory("stray-per-test")
        defer { try? FileManager.default.removeItem(at: stray) }
        // The native engine writes the report; --keep-llvm-artifacts adds the llvm tools' profile to check it against.
        let result = try TestscopeProcess.run(["run", "--package-path", pkg.path, "--output", output.path, "--show-missing", "--keep-llvm-artifacts"],
                                              environment: ["TESTSCOPE_ORDER": "ShapesTests.Stray/testStray", "TESTSCOPE_PER_TEST_DIR": stray.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let ran = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])["tests"] as? [[String: Any]]
        XCTAssertEqual(Set(try XCTUnwrap(ran).compactMap { $0["id"] as? String }), try TestscopeProcess.listedTests(pkg), "every test ran, not the stray order")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stray.path), [], "no per-test counts in the stray folder")
        for name in ["coverage.json", "coverage.lcov", "coverage.txt", "default.profdata", "llvm-cov-export.json", "swift-test.log"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(name).path), name)
        }
        XCTAssertTrue(result.stdout.contains("TOTAL"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Sources/Shapes/Shape.swift"))
        let table = try String(contentsOf: output.appendingPathComponent("coverage.txt"), encoding: .utf8)
        XCTAssertTrue(table.contains("Sources/Shapes/Shape.swift"))
        XCTAssertFalse(table.contains("Tests/"), "tests are not counted by default")
        let log = try String(contentsOf: output.appendingPathComponent("swift-test.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("Test Suite 'All tests' passed"), "the test output was captured")
        XCTAssertFalse(result.stdout.contains("Test Suite 'All tests' passed"), "the raw lines go to swift-test.log, not to the screen (--verbose shows them)")
        XCTAssertTrue(result.stdout.contains("passed, 0 failed, 0 skipped"), result.stdout)

        // Every kept line equals the toolchain's llvm-cov show of the same profile.
        let binary = try TestscopeProcess.testBinary(ofRunIn: output)
        XCTAssertTrue(binary.path.contains("/.build/testscope/"), "run builds with atomic counters in a folder of its own: \(binary.path)")
        let show = try showCounts(binary: binary)
        let files = try XCTUnwrap(try coverageJSON()["files"] as? [[String: Any]])
        XCTAssertEqual(files.count, 3)
        for file in files {
            let path = try XCTUnwrap(file["absolutePath"] as? String)
            let expected = try XCTUnwrap(show[path], path)
            let excluded = Set((file["excludedLines"] as? [Int]) ?? [])
            var ours: [Int: String] = [:]
            for line in try XCTUnwrap(file["lines"] as? [[String: Any]]) {
                ours[line["line"] as! Int] = Self.formatCount((line["count"] as! NSNumber).uint64Value)
            }
            for (n, printed) in expected where !excluded.contains(n) {
                XCTAssertEqual(ours[n] ?? "", printed, "\(path):\(n)")
            }
        }
    }

    /// `--quiet`: the failures (once: as they happen), the errors and the verdict; nothing else.
    func testQuietRunPrintsEachFailureOnceAndTheVerdict() throws {
        let result = try TestscopeProcess.run(["run", "--package-path", package("Inventory").path, "--output", output.path, "--format", "json", "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let both = result.stdout + result.stderr
        let failures = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])["tests"] as? [[String: Any]]
        let failed = try XCTUnwrap(failures).filter { $0["outcome"] as? String == "failed" }.compactMap { $0["id"] as? String }
        XCTAssertFalse(failed.isEmpty)
        for id in failed { XCTAssertEqual(both.components(separatedBy: "FAILED \(id)").count - 1, 1, "\(id) once\n\(both)") }
        XCTAssertTrue(result.stdout.hasPrefix("\n✗ Tests: "), result.stdout)
        XCTAssertTrue(result.stdout.contains("\nCoverage: lines "), result.stdout)
        XCTAssertFalse(both.contains("TOTAL") || both.contains("HTML report") || both.contains("testscope: building"), both)
    }

    func testRunWithFailingTestsStillGetsCoverage() throws {
        let result = try TestscopeProcess.run(["run", "--package-path", package("Inventory").path, "--output", output.path, "--format", "json,lcov"])
        XCTAssertEqual(result.status, 1, "tests failed → exit 1\n\(result.stderr)")
        XCTAssertTrue(result.stdout.contains("\n✗ Tests: "), "the verdict says so first\n\(result.stdout)")
        XCTAssertTrue(result.stderr.contains("FAILED InventoryCoreTests.InventoryCoreTests/testDeliberateFailure"), "each failure as it happens\n\(result.stderr)")
        let json = try coverageJSON()
        let totals = try XCTUnwrap(json["totals"] as? [String: [String: Any]])
        XCTAssertGreaterThan(try XCTUnwrap(totals["lines"]?["covered"] as? Int), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("coverage.lcov").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("coverage.txt").path))
    }

    func testForwardedFilterAndGateOnTheRun() throws {
        let result = try TestscopeProcess.run(["run", "--package-path", package("Shapes").path, "--output", output.path,
                                               "--filter", "ShapesTests.ShapesTests/testRectArea", "--fail-under-lines", "90", "--quiet"])
        XCTAssertEqual(result.status, 2, result.stderr)
        let log = try String(contentsOf: output.appendingPathComponent("swift-test.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("testRectArea"))
        XCTAssertFalse(log.contains("testLargest"), "--filter was forwarded to swift test")
        XCTAssertTrue(result.stderr.contains("coverage gate failed: lines"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--fail-under-lines"))
        XCTAssertTrue(result.stderr.contains("worst files: "), result.stderr)
        XCTAssertTrue(result.stderr.contains("Sources/Shapes/Legacy.swift 0.00% (0/"), result.stderr)
    }

    #if os(Linux) && arch(x86_64)
    /// `run` builds every counter update of the package's code as an atomic read-modify-write: a plain
    /// `load; add; store` anywhere (a plain build, or counter promotion, which leaves branch counters
    /// outside loops plain) loses increments under parallel tests and gives wrong coverage (BigInt:
    /// 29 lines falsely covered with promotion; docs/performance.md, "Hot code").
    func testRunUpdatesEveryCounterAtomically() throws {
        let pkg = package("Concurrency")
        // The run NativeEngineTests compares with llvm-cov (one run of the fixture per test process).
        let result = try TestscopeProcess.sharedRun(["run", "--package-path", pkg.path, "--format", "json", "--keep-llvm-artifacts", "--quiet"],
                                                    output: output.appendingPathComponent("run"))
        XCTAssertEqual(result.status, 0, result.stderr)
        let objects = pkg.appendingPathComponent(".build/testscope/debug/Concurrency.build")
        let files = try FileManager.default.contentsOfDirectory(atPath: objects.path).filter { $0.hasSuffix(".o") }
        XCTAssertFalse(files.isEmpty, objects.path)
        let objdump = try XCTUnwrap(shell(["sh", "-c", "dirname \"$(readlink -f \"$(command -v swift)\")\""])) + "/llvm-objdump"
        var atomic = 0, plain: [String] = []
        for file in files {
            let text = try XCTUnwrap(shell([objdump, "-dr", "--no-show-raw-insn", objects.appendingPathComponent(file).path]))
            // A relocation line follows its instruction; llvm-objdump prints a `lock` prefix on a line of its own.
            var previous = "", instruction = ""
            for line in text.split(separator: "\n") {
                if line.first == " " { (previous, instruction) = (instruction, String(line)); continue }
                guard line.contains("__profc_") else { continue }
                if previous.hasSuffix("\tlock") { atomic += 1 } else { plain.append("\(file): \(instruction)") }
            }
        }
        XCTAssertGreaterThan(atomic, 5)
        XCTAssertEqual(plain, [], "counter updates that are not atomic")
    }
    #endif

    private func shell(_ arguments: [String]) throws -> String? { try TestscopeProcess.output(of: arguments) }
}
