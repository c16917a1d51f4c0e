import Foundation
import XCTest

/// The native engine (Testscope's own readers of the profiles and the binaries' coverage mapping)
/// against `llvm-cov export` on the same profiles: every fixture package run for real, the whole
/// `coverage.json` compared (only its inputs and creation time may differ).
final class NativeEngineTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("native") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func package(_ name: String) -> URL { TestscopeProcess.samples.appendingPathComponent("packages/\(name)") }

    /// `coverage.json` without the lines that name the inputs and the time.
    func comparable(_ url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.contains("\"inputs\"") && !$0.contains("\"createdAt\"") }
    }

    /// `run` (native) and `report` of the llvm-cov export the same run kept: identical reports.
    func assertEnginesAgree(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let native = folder.appendingPathComponent("\(name)-native"), llvm = folder.appendingPathComponent("\(name)-llvm")
        // One run per fixture for the whole class (five tests compare Shapes'), copied into `native`.
        // Not --quiet: the fallback's note must be able to show.
        let run = try TestscopeProcess.sharedRun(["run", "--package-path", package(name).path, "--format", "json", "--keep-llvm-artifacts"],
                                                 output: native)
        XCTAssertTrue([0, 1].contains(run.status), run.stderr, file: file, line: line)
        XCTAssertFalse(run.stderr.contains("using llvm-cov instead"), run.stderr, file: file, line: line)
        let report = try TestscopeProcess.run(["report", "--export", native.appendingPathComponent("llvm-cov-export.json").path,
                                               "--package-path", package(name).path, "--output", llvm.path, "--format", "json", "--quiet"])
        XCTAssertEqual(report.status, 0, report.stderr, file: file, line: line)
        let ours = try comparable(native.appendingPathComponent("coverage.json"))
        let theirs = try comparable(llvm.appendingPathComponent("coverage.json"))
        XCTAssertGreaterThan(ours.count, 10, file: file, line: line)
        for (i, (a, b)) in zip(ours, theirs).enumerated() where a != b {
            XCTFail("\(name): coverage.json line \(i + 1) differs:\nnative:   \(a)\nllvm-cov: \(b)", file: file, line: line)
            break
        }
        XCTAssertEqual(ours.count, theirs.count, file: file, line: line)
        return native
    }

    func testEveryFixtureAgreesWithLLVMCovExport() throws {
        for name in ["Shapes", "Inventory", "Hostile", "CFamily", "Concurrency"] where FileManager.default.fileExists(atPath: package(name).path) {
            _ = try assertEnginesAgree(name)
        }
    }

    /// Two test binaries (llvm-cov's `-object`) and every raw profile of both runs, given to `report`.
    func testTwoBinariesAgreeWithLLVMCov() throws {
        var profiles: [String] = [], binaries: [String] = []
        for name in ["Shapes", "Inventory"] {
            let out = try assertEnginesAgree(name)
            let dir = out.appendingPathComponent("profiles")
            profiles += try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".profraw") }
                .map { dir.appendingPathComponent($0).path }
            binaries.append(try TestscopeProcess.testBinary(ofRunIn: out).path)
        }
        let root = TestscopeProcess.samples.appendingPathComponent("packages").path
        var outputs: [[String]] = []
        for engine in ["native", "llvm-cov"] {
            let out = folder.appendingPathComponent("two-\(engine)")
            let result = try TestscopeProcess.run(["report", "--package-path", root, "--include", "**", "--engine", engine,
                                                   "--output", out.path, "--format", "json", "--quiet"]
                                                  + profiles.flatMap { ["--profile", $0] } + binaries.flatMap { ["--binary", $0] })
            XCTAssertEqual(result.status, 0, result.stderr)
            outputs.append(try comparable(out.appendingPathComponent("coverage.json")))
        }
        XCTAssertTrue(outputs[0].contains { $0.contains("Sources/Shapes/Shape.swift") } && outputs[0].contains { $0.contains("InventoryCore") })
        XCTAssertEqual(outputs[0], outputs[1])
    }

    /// A truncated raw profile among good ones is a warning naming it; a profile of another build is an error.
    func testTruncatedProfilesAndProfilesOfAnotherBuild() throws {
        let out = try assertEnginesAgree("Shapes")
        let dir = out.appendingPathComponent("profiles")
        let raws = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".profraw") }.sorted()
        XCTAssertGreaterThanOrEqual(raws.count, 2)
        let truncated = folder.appendingPathComponent("truncated.profraw")
        let whole = try Data(contentsOf: dir.appendingPathComponent(raws[0]))
        try whole.prefix(whole.count / 2).write(to: truncated)
        let binary = try TestscopeProcess.testBinary(ofRunIn: out).path
        let base = ["report", "--package-path", package("Shapes").path, "--binary", binary, "--format", "json", "--quiet"]
        let some = try TestscopeProcess.run(base + ["--output", folder.appendingPathComponent("t1").path,
                                                    "--profile", truncated.path, "--profile", dir.appendingPathComponent(raws[1]).path])
        XCTAssertEqual(some.status, 0, some.stderr)
        XCTAssertEqual(some.errorLines.filter { $0.contains("truncated.profraw") && $0.hasPrefix("testscope: warning:") }.count, 1, some.stderr)
        let none = try TestscopeProcess.run(base + ["--output", folder.appendingPathComponent("t2").path, "--profile", truncated.path])
        XCTAssertEqual(none.status, 65, none.stderr)
        XCTAssertEqual(none.errorLines.count, 1, none.stderr)
        XCTAssertTrue(none.stderr.contains("truncated.profraw is not a readable profile"), none.stderr)

        // Inventory's binary with Shapes' profile: the build IDs differ.
        let inventory = folder.appendingPathComponent("inv")
        _ = try TestscopeProcess.run(["run", "--package-path", package("Inventory").path, "--output", inventory.path, "--format", "json", "--quiet"])
        let foreign = ["report", "--package-path", package("Shapes").path, "--format", "json", "--quiet",
                       "--profile", dir.appendingPathComponent(raws[1]).path,
                       "--binary", try TestscopeProcess.testBinary(ofRunIn: inventory).path]
        let mismatched = try TestscopeProcess.run(foreign + ["--output", folder.appendingPathComponent("t3").path])
        XCTAssertEqual(mismatched.status, 65, mismatched.stderr)
        XCTAssertEqual(mismatched.errorLines.count, 1, mismatched.stderr)
        XCTAssertTrue(mismatched.stderr.contains("was recorded by another build") && mismatched.stderr.contains("--allow-mismatched-profile"), mismatched.stderr)
        let allowed = try TestscopeProcess.run(foreign + ["--output", folder.appendingPathComponent("t4").path, "--allow-mismatched-profile"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stderr.contains("testscope: warning: the profile"), allowed.stderr)
    }

    /// Hostile inputs to the native readers: one line, status 65, nothing written.
    func testBadProfilesAndBinariesAreOneLineOfBadInput() throws {
        let out = try assertEnginesAgree("Shapes")
        let binary = try TestscopeProcess.testBinary(ofRunIn: out).path
        let empty = folder.appendingPathComponent("empty.profraw"), garbage = folder.appendingPathComponent("garbage.profraw")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        var generator = SystemRandomNumberGenerator()
        try Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: garbage)
        let profile = TestscopeProcess.samples.appendingPathComponent("recorded/Shapes/default.profdata").path
        let cases: [([String], String)] = [
            (["--profile", empty.path, "--binary", binary], "empty.profraw is not a readable profile"),
            (["--profile", garbage.path, "--binary", binary], "garbage.profraw is not a readable profile"),
            (["--profile", profile, "--binary", folder.path], "it is a folder"),
            (["--profile", profile, "--binary", "/bin/ls"], "/bin/ls has no coverage mapping"),
        ]
        for (index, (arguments, message)) in cases.enumerated() {
            let target = folder.appendingPathComponent("bad-\(index)")
            let result = try TestscopeProcess.run(["report", "--package-path", package("Shapes").path, "--output", target.path] + arguments)
            XCTAssertEqual(result.status, 65, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.errorLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: target.appendingPathComponent("coverage.json").path))
        }
    }

    /// Profiles another program wrote, by another LLVM (Debian's llvm-profdata 14, as a user with the
    /// wrong tool on PATH makes them): a front-end profile matches no function → one line, 65; an
    /// IR-level one (the native engine hands it to llvm-cov) → the report says nothing ran and why.
    func testProfilesOfAnotherProgramByAnotherLLVM() throws {
        let oldProfdata = "/usr/bin/llvm-profdata"
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: oldProfdata), "Debian's llvm (14) is required; .ci/run installs it")
        let out = try assertEnginesAgree("Shapes")
        let binary = try TestscopeProcess.testBinary(ofRunIn: out).path
        func profile(_ name: String, _ text: String) throws -> String {
            let source = folder.appendingPathComponent("\(name).proftext"), target = folder.appendingPathComponent("\(name).profdata")
            try text.write(to: source, atomically: true, encoding: .utf8)
            XCTAssertNotNil(try TestscopeProcess.output(of: [oldProfdata, "merge", "-o", target.path, source.path]), "llvm-profdata 14 merge")
            return target.path
        }
        let frontEnd = try profile("fe", "main\n0\n1\n5\n\n")
        let ir = try profile("ir", "# IR level Instrumentation Flag\n:ir\nmain\n# Func Hash:\n0\n# Num Counters:\n1\n# Counter Values:\n5\n\n")
        let base = ["report", "--package-path", package("Shapes").path, "--binary", binary, "--format", "json"]
        let unrelated = try TestscopeProcess.run(base + ["--profile", frontEnd, "--output", folder.appendingPathComponent("fe").path])
        XCTAssertEqual(unrelated.status, 65, unrelated.stderr)
        XCTAssertEqual(unrelated.errorLines.count, 1, unrelated.stderr)
        XCTAssertTrue(unrelated.stderr.contains("has no count for any function of") && unrelated.stderr.contains("--allow-mismatched-profile"), unrelated.stderr)
        let allowed = try TestscopeProcess.run(base + ["--profile", frontEnd, "--allow-mismatched-profile", "--output", folder.appendingPathComponent("fe2").path])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        let irLevel = try TestscopeProcess.run(base + ["--profile", ir, "--output", folder.appendingPathComponent("ir").path])
        XCTAssertEqual(irLevel.status, 0, irLevel.stderr)
        XCTAssertTrue(irLevel.stderr.contains("no function under") && irLevel.stderr.contains("belongs to another build or program"), irLevel.stderr)
    }
}
