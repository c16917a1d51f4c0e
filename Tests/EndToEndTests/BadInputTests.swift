import Foundation
import XCTest
import TestscopeExecution
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bad inputs given to the real `testscope` binary: each must end with the documented exit status and
/// one `testscope: error:` line naming the culprit, never a crash, and must not write outside `--output`.
final class BadInputTests: XCTestCase {

    // MARK: - report --export: missing, empty, malformed and wrong-kind exports

    /// 1. A missing export.
    func testMissingExportIsBadInput() throws {
        let box = try Sandbox(self)
        let missing = box.inputs.appendingPathComponent("missing.json")
        let result = try box.run(["report", "--export", missing.path])
        assertBadInput(result, naming: [missing.path], mentioning: ["does not exist"])
        box.assertNoReports()
    }

    /// 2. An empty export file.
    func testEmptyExportIsBadInput() throws {
        let box = try Sandbox(self)
        let empty = try box.input("empty.json", Data())
        let result = try box.run(["report", "--export", empty.path])
        assertBadInput(result, naming: [empty.path], mentioning: ["empty"])
        box.assertNoReports()
    }

    /// 3. The first half of a real export.
    func testTruncatedExportIsBadInput() throws {
        let box = try Sandbox(self)
        let full = try Data(contentsOf: recorded("Shapes/coverage.json"))
        let truncated = try box.input("truncated.json", full.prefix(full.count / 2))
        let result = try box.run(["report", "--export", truncated.path])
        assertBadInput(result, naming: [truncated.path], mentioning: ["JSON", "truncated"])
        box.assertNoReports()
    }

    /// 4. Text that is not JSON at all.
    func testNonJSONExportIsBadInput() throws {
        let box = try Sandbox(self)
        let hello = try box.input("hello.json", Data("hello\n".utf8))
        let result = try box.run(["report", "--export", hello.path])
        assertBadInput(result, naming: [hello.path], mentioning: ["JSON"])
        box.assertNoReports()
    }

    /// 5. Valid JSON that is some other document.
    func testJSONOfAnotherTypeIsBadInput() throws {
        let box = try Sandbox(self)
        let other = try box.input("other.json", Data(#"{"type":"something.else","data":[]}"#.utf8))
        let result = try box.run(["report", "--export", other.path])
        assertBadInput(result, naming: [other.path], mentioning: ["something.else"])
        box.assertNoReports()
    }

    /// 6. The recorded `-summary-only` export, mapped onto the fixture package.
    func testSummaryOnlyExportIsBadInput() throws {
        let box = try Sandbox(self)
        let summaryOnly = recorded("Shapes/coverage-summary-only.json")
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
        let result = try box.run(
            ["report", "--export", summaryOnly.path, "--package-path", package.path,
             "--path-equivalence", "\(try TestscopeProcess.recordedRoot("Shapes")),\(package.path)"],
            watching: [package, recorded("Shapes")])
        assertBadInput(result, naming: [summaryOnly.path], mentioning: ["summary-only"])
        box.assertNoReports()
    }

    /// 6b. The same export where no file belongs to the package (run from an unrelated folder):
    /// still a summary-only export, which must not pass as an empty, successful report.
    func testSummaryOnlyExportIsBadInputEvenWhenNoFileMatchesThePackage() throws {
        let box = try Sandbox(self)
        let summaryOnly = recorded("Shapes/coverage-summary-only.json")
        let result = try box.run(["report", "--export", summaryOnly.path], watching: [recorded("Shapes")])
        assertBadInput(result, naming: [summaryOnly.path], mentioning: ["summary-only"])
        box.assertNoReports()
    }

    /// 7. An unreadable export: a directory (root can read a chmod 000 file, so that is only tried as non-root).
    func testUnreadableExportIsBadInput() throws {
        let box = try Sandbox(self)
        let directory = box.inputs.appendingPathComponent("folder.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let result = try box.run(["report", "--export", directory.path])
        assertBadInput(result, naming: [directory.path])
        box.assertNoReports()

        if geteuid() != 0 {
            let locked = try box.input("locked.json", try Data(contentsOf: recorded("Shapes/coverage.json")))
            XCTAssertEqual(chmod(locked.path, 0), 0)
            defer { _ = chmod(locked.path, 0o644) }
            let box2 = try Sandbox(self)
            let lockedResult = try box2.run(["report", "--export", locked.path], watching: [box.inputs])
            assertBadInput(lockedResult, naming: [locked.path])
            box2.assertNoReports()
        }
    }

    // MARK: - report --profile/--binary and --build-path: llvm's failures

    /// 8. A garbage file named like a profile.
    func testGarbageProfdataIsBadInput() throws {
        let box = try Sandbox(self)
        let garbage = try box.input("x.profdata", Data("this is not a profile\n".utf8))
        let result = try box.run(["report", "--profile", garbage.path, "--binary", "/bin/ls"])
        assertBadInput(result, naming: [garbage.path])
        box.assertNoReports()
    }

    /// 8b. A garbage `.profraw` (merged with llvm-profdata first): the same kind of bad input.
    func testGarbageProfrawIsBadInput() throws {
        let box = try Sandbox(self)
        let garbage = try box.input("x.profraw", Data("this is not a raw profile\n".utf8))
        let result = try box.run(["report", "--profile", garbage.path, "--binary", "/bin/ls"])
        assertBadInput(result, naming: [garbage.path])
        box.assertNoReports()
    }

    /// 9. A real profile with a binary built without coverage.
    func testBinaryWithoutCoverageMappingIsBadInput() throws {
        let box = try Sandbox(self)
        let profile = recorded("Shapes/default.profdata")
        let result = try box.run(["report", "--profile", profile.path, "--binary", "/bin/ls"],
                                 watching: [recorded("Shapes")])
        assertBadInput(result, naming: ["/bin/ls"], mentioning: ["no coverage mapping"])
        box.assertNoReports()
    }

    /// 10. An llvm-cov from another LLVM (Debian's /usr/bin) on a real coverage binary and profile
    /// (`--engine llvm-cov`: the native engine runs no llvm tool): the message must point at the toolchain's own llvm-cov.
    func testLLVMCovFromAnotherToolchainIsBadInput() throws {
        let foreign = try foreignTool("llvm-cov")
        let tiny = try Self.tinyPackage()
        let box = try Sandbox(self)
        let result = try box.run(
            ["report", "--profile", tiny.profdata.path, "--binary", tiny.binary.path, "--package-path", tiny.root.path,
             "--llvm-cov", foreign.path, "--llvm-profdata", try foreignTool("llvm-profdata").path, "--engine", "llvm-cov"],
            watching: tiny.watched)
        let suggestion = try toolchainDirectory().appendingPathComponent("llvm-cov").path
        assertBadInput(result, naming: [" \(foreign.path) ", suggestion])
        box.assertNoReports()
    }

    /// 10b. The same with raw profiles, which llvm-profdata merges first: the message must point at the
    /// toolchain's own llvm-profdata.
    func testLLVMProfdataFromAnotherToolchainIsBadInput() throws {
        let foreign = try foreignTool("llvm-profdata")
        let tiny = try Self.tinyPackage()
        XCTAssertFalse(tiny.profraws.isEmpty, "swift test --enable-code-coverage left no .profraw files")
        let box = try Sandbox(self)
        var arguments = ["report", "--binary", tiny.binary.path, "--package-path", tiny.root.path,
                         "--llvm-profdata", foreign.path, "--engine", "llvm-cov"]
        for raw in tiny.profraws { arguments += ["--profile", raw.path] }
        let result = try box.run(arguments, watching: tiny.watched)
        let suggestion = try toolchainDirectory().appendingPathComponent("llvm-profdata").path
        assertBadInput(result, naming: [" \(foreign.path) ", suggestion])
        box.assertNoReports()
    }

    // MARK: - Sources that are odd at report time: warnings, not errors

    /// 11. A source file that is not valid UTF-8 when the report reads it: exit 0, a warning, reports written.
    func testNonUTF8SourceGivesAWarningAndAReport() throws {
        let tiny = try Self.tinyPackage()
        let box = try Sandbox(self)
        let copy = try box.copyOfTinySources(tiny)
        let source = copy.appendingPathComponent("Sources/Tiny/Tiny.swift")
        var bytes = [UInt8](try Data(contentsOf: source))
        let marker = Array("cafe".utf8)
        let at = try XCTUnwrap(bytes.indices.first { bytes[$0...].starts(with: marker) }, "Tiny.swift lost its comment")
        bytes.replaceSubrange(at..<(at + 2), with: [0xFF, 0xFE])  // same length: line numbers unchanged
        try Data(bytes).write(to: source)
        XCTAssertNil(String(data: Data(bytes), encoding: .utf8))

        let result = try box.run(
            ["report", "--export", tiny.export.path, "--package-path", copy.path,
             "--path-equivalence", "\(tiny.root.path),\(copy.path)", "--format", "json,lcov,text"],
            watching: tiny.watched + [copy])
        assertNoCrash(result)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.errorLines.filter { $0.hasPrefix("testscope: error:") }.isEmpty, result.stderr)
        let warnings = result.errorLines.filter { $0.hasPrefix("testscope: warning:") }
        XCTAssertTrue(warnings.contains { $0.contains("Sources/Tiny/Tiny.swift") && $0.contains("UTF-8") },
                      "no UTF-8 warning naming Sources/Tiny/Tiny.swift in:\n\(result.stderr)")
        let file = try XCTUnwrap(try box.reportedFile("Sources/Tiny/Tiny.swift"), "Tiny.swift missing from coverage.json")
        XCTAssertEqual(file["sourceAvailable"] as? Bool, true)
        XCTAssertFalse((file["lines"] as? [Any] ?? []).isEmpty, "no line counts for Tiny.swift")
        XCTAssertTrue(result.stdout.contains("Sources/Tiny/Tiny.swift"), result.stdout)
    }

    /// 11b. The brief's literal case, `testscope run` on a package with invalid UTF-8 in a comment: the Swift
    /// compiler itself rejects such a file ("invalid UTF-8 found in source file"), so no test runs; testscope
    /// must say so in one error line and exit 1 (the tests did not build), without a crash or a report.
    func testRunWithNonUTF8SourceReportsTheCompilerFailure() throws {
        let tiny = try Self.tinyPackage()
        let box = try Sandbox(self)
        let copy = try box.copyOfTinySources(tiny)
        let latin = copy.appendingPathComponent("Sources/Tiny/Latin.swift")
        try Data([0x2F, 0x2F, 0x20, 0x63, 0x61, 0xFF, 0xFE, 0x0A] + Array("public func latin() -> Int { 1 }\n".utf8))
            .write(to: latin)
        let result = try box.run(["run", "--package-path", copy.path], watching: [copy])
        assertNoCrash(result)
        XCTAssertEqual(result.status, 1, result.stderr)
        let errors = result.errorLines.filter { $0.hasPrefix("testscope: error:") }
        XCTAssertEqual(errors.count, 1, result.stderr)
        XCTAssertTrue(errors.first?.contains("did not build") ?? false, result.stderr)
        let everything = result.stdout + result.stderr
        XCTAssertTrue(everything.contains("Latin.swift") && everything.contains("UTF-8"), everything)
        box.assertNoReports()
    }

    /// 12. A source deleted after the run: exit 0, a warning naming it, and the file still reported
    /// with `sourceAvailable: false` (from SwiftPM's export, and from --build-path).
    func testDeletedSourceGivesAWarningAndIsStillReported() throws {
        let tiny = try Self.tinyPackage()
        for mode in ["export", "build-path"] {
            let box = try Sandbox(self)
            let copy = try box.copyOfTinySources(tiny)
            try FileManager.default.removeItem(at: copy.appendingPathComponent("Sources/Tiny/Extra.swift"))
            var arguments = ["report", "--package-path", copy.path, "--path-equivalence", "\(tiny.root.path),\(copy.path)"]
            arguments += mode == "export" ? ["--export", tiny.export.path]
                                          : ["--build-path", tiny.root.appendingPathComponent(".build").path]
            let result = try box.run(arguments + ["--format", "json,lcov"], watching: tiny.watched + [copy])
            assertNoCrash(result)
            XCTAssertEqual(result.status, 0, "\(mode): \(result.stderr)")
            XCTAssertTrue(result.errorLines.filter { $0.hasPrefix("testscope: error:") }.isEmpty, result.stderr)
            XCTAssertTrue(result.errorLines.contains { $0.hasPrefix("testscope: warning:") && $0.contains("Sources/Tiny/Extra.swift") },
                          "\(mode): no warning naming Sources/Tiny/Extra.swift in:\n\(result.stderr)")
            let file = try XCTUnwrap(try box.reportedFile("Sources/Tiny/Extra.swift"), "\(mode): Extra.swift missing from coverage.json")
            XCTAssertEqual(file["sourceAvailable"] as? Bool, false, mode)
            let lines = file["lines"] as? [[String: Any]] ?? []
            XCTAssertFalse(lines.isEmpty, "\(mode): no line counts kept for the deleted file")
            XCTAssertTrue(lines.contains { ($0["count"] as? Int ?? 0) > 0 }, "\(mode): triple() ran, but no covered line")
            let lcov = try String(contentsOf: box.output.appendingPathComponent("coverage.lcov"), encoding: .utf8)
            XCTAssertTrue(lcov.contains("SF:\(copy.path)/Sources/Tiny/Extra.swift\n"), "\(mode): \(lcov)")
        }
    }

    // MARK: - run: not a package, no tests

    /// 13a. `run` in a folder without Package.swift.
    func testRunWithoutPackageSwiftIsBadInput() throws {
        let box = try Sandbox(self)
        let folder = box.inputs.appendingPathComponent("not-a-package")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources"), withIntermediateDirectories: true)
        let result = try box.run(["run", "--package-path", folder.path])
        assertBadInput(result, naming: [folder.path], mentioning: ["Package.swift"])
        box.assertNoReports()
    }

    /// 13b. `run` on a package with only a library target.
    func testRunOnPackageWithoutTestsIsBadInput() throws {
        let box = try Sandbox(self)
        let package = box.inputs.appendingPathComponent("NoTests")
        try write("""
            // swift-tools-version:5.9
            import PackageDescription

            let package = Package(name: "NoTests", targets: [.target(name: "Lib")])

            """, to: package.appendingPathComponent("Package.swift"))
        try write("public func one() -> Int { 1 }\n", to: package.appendingPathComponent("Sources/Lib/Lib.swift"))
        let result = try box.run(["run", "--package-path", package.path])
        // swift test's own output is streamed to stderr too, so only testscope's lines must be exactly one.
        assertBadInput(result, naming: [package.path], mentioning: ["no tests"], onlyLine: false, stdoutMayHaveText: true)
        box.assertNoReports()
    }

    // (Counts near 2^64, 14, are a report that succeeds: TestscopeKitTests' ReportInProcessTests.)

    // MARK: - Usage errors (ArgumentParser validation)

    /// 15. Usage errors exit 64 and name the problem.
    func testUsageErrors() throws {
        let cases: [(arguments: [String], mentions: String)] = [
            (["report", "--export", "x", "--format", "nope"], "nope"),
            (["report", "--export", "x", "--format", ""], "--format names no format"),
            (["report", "--export", "x", "--fail-under-lines", "150"], "--fail-under-lines"),
            (["report", "--export", "x", "--fail-under-lines", "abc"], "'abc'"),
            (["report", "--export", "x", "--bogus"], "--bogus"),
            (["flaky", "--jobs", "0"], "--jobs"),
            (["flaky", "--format", "cobertura"], "unknown format 'cobertura'"),
            (["report", "--export", "x", "stray"], "stray"),
        ]
        for (arguments, mention) in cases {
            let box = try Sandbox(self)
            let result = try box.run(arguments)
            assertNoCrash(result)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(mention), "\(arguments): stderr does not mention \(mention): \(result.stderr)")
            // One line, like every other error: what is wrong and where the help is (no usage dump).
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(lines.first?.hasPrefix("testscope: error: ") == true, "\(arguments): \(result.stderr)")
            XCTAssertTrue(lines.first?.hasSuffix("--help')") == true, "\(arguments): \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: box.output.path), "\(arguments): created the output folder")
        }
    }

    // MARK: - Assertions

    /// The documented status, exactly one `testscope: error:` line naming each of `naming`, no crash.
    func assertBadInput(_ result: TestscopeProcess.Result, status: Int32 = 65, naming: [String],
                                mentioning: [String] = [], onlyLine: Bool = true, stdoutMayHaveText: Bool = false,
                                file: StaticString = #filePath, line: UInt = #line) {
        assertNoCrash(result, file: file, line: line)
        XCTAssertEqual(result.status, status, "stderr:\n\(result.stderr)", file: file, line: line)
        let errors = result.errorLines.filter { $0.hasPrefix("testscope: error: ") }
        XCTAssertEqual(errors.count, 1, "expected one error line; stderr:\n\(result.stderr)", file: file, line: line)
        if onlyLine {
            XCTAssertEqual(result.errorLines.count, 1, "expected nothing but the error line; stderr:\n\(result.stderr)", file: file, line: line)
        }
        if !stdoutMayHaveText {
            XCTAssertEqual(result.stdout, "", "a failed command printed a report", file: file, line: line)
        }
        guard let message = errors.first else { return }
        for name in naming {
            XCTAssertTrue(message.contains(name), "error line does not name \(name): \(message)", file: file, line: line)
        }
        for word in mentioning {
            XCTAssertTrue(message.localizedCaseInsensitiveContains(word), "error line does not mention \(word): \(message)",
                          file: file, line: line)
        }
    }

    func assertNoCrash(_ result: TestscopeProcess.Result, file: StaticString = #filePath, line: UInt = #line) {
        for marker in ["Fatal error", "Program crashed", "Thread 0", "Backtrace", "Stack dump", "Illegal instruction",
                       "Segmentation fault"] {
            XCTAssertFalse(result.stderr.contains(marker) || result.stdout.contains(marker),
                           "crash marker \"\(marker)\" in output:\n\(result.stderr)", file: file, line: line)
        }
        XCTAssertLessThan(result.status, 128, "killed by a signal", file: file, line: line)
    }

    func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: pattern, options: .regularExpression) != nil
    }

    func recorded(_ path: String) -> URL {
        TestscopeProcess.samples.appendingPathComponent("recorded/\(path)")
    }

    func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// The folder of the `swift` on PATH, symlinks resolved: where testscope takes its llvm tools from.
    private func toolchainDirectory() throws -> URL {
        let swift = try XCTUnwrap(Self.findInPath("swift"), "no swift on PATH")
        return swift.resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// `/usr/bin/<tool>`: Debian's LLVM 14 (package `llvm`, installed by .ci/run), never the toolchain's own.
    private func foreignTool(_ name: String) throws -> URL {
        let foreign = URL(fileURLWithPath: "/usr/bin/\(name)")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: foreign.path), "\(foreign.path) is required (apt-get install llvm)")
        let own = try toolchainDirectory().appendingPathComponent(name)
        XCTAssertNotEqual(foreign.resolvingSymlinksInPath().path, own.resolvingSymlinksInPath().path,
                          "\(foreign.path) must be another LLVM than the toolchain's")
        return foreign
    }

    static func findInPath(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    // MARK: - One test's folders

    /// A test's own folders: an empty working directory, a folder for inputs and a fresh `--output`.
    /// `run` snapshots the working directory, the inputs and any watched folder and fails the test if the
    /// command changed any of them (only `--output` may be written).
    struct Sandbox {
        let test: BadInputTests
        let root: URL
        let cwd: URL
        let inputs: URL
        let output: URL

        init(_ test: BadInputTests) throws {
            self.test = test
            root = try TestscopeProcess.temporaryDirectory("testscope-bad-input")
            cwd = root.appendingPathComponent("cwd")
            inputs = root.appendingPathComponent("inputs")
            output = root.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
            let root = self.root
            test.addTeardownBlock {
                _ = try? FileManager.default.removeItem(at: root)
            }
        }

        func input(_ name: String, _ data: Data) throws -> URL {
            let url = inputs.appendingPathComponent(name)
            try data.write(to: url)
            return url
        }

        /// Runs testscope with `--output` added, in the empty working directory.
        func run(_ arguments: [String], watching: [URL] = [],
                 file: StaticString = #filePath, line: UInt = #line) throws -> TestscopeProcess.Result {
            let folders = [cwd, inputs] + watching
            let before = folders.map(Self.listing)
            for (folder, entries) in zip(watching, before.dropFirst(2)) {
                XCTAssertFalse(entries.isEmpty, "nothing to watch in \(folder.path)", file: file, line: line)
            }
            let result = try TestscopeProcess.run(arguments + ["--output", output.path], in: cwd)
            for (folder, old) in zip(folders, before) {
                let new = Self.listing(folder)
                XCTAssertEqual(new, old, "testscope \(arguments.joined(separator: " ")) changed \(folder.path)",
                               file: file, line: line)
            }
            return result
        }

        /// After a failure: no reports and no half-written temporary files in the output folder.
        func assertNoReports(file: StaticString = #filePath, line: UInt = #line) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
            for name in names {
                XCTAssertFalse(name.hasPrefix("coverage.") || name.contains(".tmp"), "\(name) left in the output folder",
                               file: file, line: line)
            }
        }

        /// The `files` entry of coverage.json whose `path` is `path`.
        func reportedFile(_ path: String) throws -> [String: Any]? {
            let data = try Data(contentsOf: output.appendingPathComponent("coverage.json"))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let files = object?["files"] as? [[String: Any]] ?? []
            return files.first { $0["path"] as? String == path }
        }

        /// A copy of the tiny package without its build folder (sources, tests and manifest).
        func copyOfTinySources(_ tiny: TinyPackage) throws -> URL {
            let copy = root.appendingPathComponent("TinyCopy")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            for name in ["Package.swift", "Sources", "Tests"] {
                try FileManager.default.copyItem(at: tiny.root.appendingPathComponent(name), to: copy.appendingPathComponent(name))
            }
            return copy
        }

        /// Every entry under `folder` (not descending into `.build`), with size and modification time for files.
        static func listing(_ folder: URL) -> [String] {
            var entries: [String] = []
            func walk(_ url: URL, _ relative: String) {
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
                for name in names.sorted() where name != ".build" {
                    let child = url.appendingPathComponent(name)
                    let path = relative.isEmpty ? name : relative + "/" + name
                    let attributes = (try? FileManager.default.attributesOfItem(atPath: child.path)) ?? [:]
                    if attributes[.type] as? FileAttributeType == .typeDirectory {
                        entries.append("\(path)/")
                        walk(child, path)
                    } else {
                        let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
                        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                        entries.append("\(path) \(size) \(modified)")
                    }
                }
            }
            walk(folder, "")
            return entries
        }
    }

    // MARK: - The shared tiny package, built once with coverage

    struct TinyPackage {
        var root: URL
        /// `<Name>PackageTests.xctest`, built with coverage.
        var binary: URL
        /// `.build/debug/codecov/default.profdata` merged by `swift test --enable-code-coverage`.
        var profdata: URL
        var profraws: [URL]
        /// The export SwiftPM wrote beside it (`codecov/Tiny.json`).
        var export: URL
        /// Folders no report command may change.
        var watched: [URL] { [root, profdata.deletingLastPathComponent()] }
    }

    private static let tiny = Locked<(result: Result<TinyPackage, Error>?, folder: URL?)>((nil, nil))

    /// Builds and tests the tiny package once for the whole class.
    static func tinyPackage() throws -> TinyPackage {
        try tiny.withLock { tiny in
            if let result = tiny.result { return try result.get() }
            let folder = try TestscopeProcess.temporaryDirectory("testscope-tiny")
            tiny.folder = folder
            let result = Result { try buildTinyPackage(in: folder) }
            tiny.result = result
            return try result.get()
        }
    }

    override class func tearDown() {
        tiny.withLock { tiny in
            if let folder = tiny.folder { try? FileManager.default.removeItem(at: folder) }
            tiny = (nil, nil)
        }
        super.tearDown()
    }

    private static func buildTinyPackage(in folder: URL) throws -> TinyPackage {
        let root = folder.appendingPathComponent("Tiny")
        let files = [
            "Package.swift": """
                // swift-tools-version:5.9
                import PackageDescription

                let package = Package(
                    name: "Tiny",
                    targets: [
                        .target(name: "Tiny"),
                        .testTarget(name: "TinyTests", dependencies: ["Tiny"]),
                    ]
                )

                """,
            "Sources/Tiny/Tiny.swift": """
                // Tiny: cafe au lait.
                public func double(_ x: Int) -> Int {
                    x * 2
                }

                public func unused(_ x: Int) -> Int {
                    if x > 0 {
                        return x
                    }
                    return -x
                }

                """,
            "Sources/Tiny/Extra.swift": """
                public func triple(_ x: Int) -> Int {
                    x * 3
                }

                """,
            "Tests/TinyTests/TinyTests.swift": """
                import XCTest
                import Tiny

                final class TinyTests: XCTestCase {
                    func testDoubleAndTriple() {
                        XCTAssertEqual(double(2), 4)
                        XCTAssertEqual(triple(2), 6)
                    }
                }

                """,
        ]
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        guard let swift = findInPath("swift") else { throw SetupError("no swift on PATH") }
        let process = Process()
        process.executableURL = swift
        process.arguments = ["test", "--package-path", root.path, "--enable-code-coverage"]
        process.currentDirectoryURL = root
        let log = folder.appendingPathComponent("swift-test.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw SetupError("swift test --enable-code-coverage on the tiny package failed:\n\(text.suffix(4000))")
        }
        let bin = root.appendingPathComponent(".build/debug")
        var binary = bin.appendingPathComponent("TinyPackageTests.xctest")
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDirectory), isDirectory.boolValue {
            binary = binary.appendingPathComponent("Contents/MacOS/TinyPackageTests")  // macOS bundle
        }
        let codecov = bin.appendingPathComponent("codecov")
        let profdata = codecov.appendingPathComponent("default.profdata")
        let export = codecov.appendingPathComponent("Tiny.json")
        for url in [binary, profdata, export] where !FileManager.default.fileExists(atPath: url.path) {
            throw SetupError("swift test --enable-code-coverage did not create \(url.path)")
        }
        let profraws = ((try? FileManager.default.contentsOfDirectory(atPath: codecov.path)) ?? [])
            .filter { $0.hasSuffix(".profraw") }.sorted().map { codecov.appendingPathComponent($0) }
        return TinyPackage(root: root, binary: binary, profdata: profdata, profraws: profraws, export: export)
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
