import Foundation
import XCTest

/// `report` on the Mach-O fixtures (sample-profiles/macho, made on Linux by its record-macho.sh):
/// read natively (no fallback note), with the per-line counts `llvm-cov export` gave on each file
/// (expected/*.lcov, `-arch` per slice of the universal one), and the same reports as the ELF twin's.
final class MachOReportTests: XCTestCase {
    static let fixtures = TestscopeProcess.samples.appendingPathComponent("macho")
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("macho") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    var cFiles: [String] { ["c.arm64.o", "c.x86_64.o", "c.arm64.exe", "c.x86_64.exe", "libc.x86_64.dylib", "c.arm64.bundle", "c.universal.exe"] }
    var swiftFiles: [String] {
        ["swift.arm64.o", "swift.x86_64.o", "swift.arm64.exe", "libswift.x86_64.dylib",
         "swift.arm64.bundle"]
    }

    /// `report` of `binary` with `profile` into a fresh folder; the mappings' /macho paths point at the fixtures.
    func report(_ inputs: [String], _ extra: [String] = [], name: String, status: Int32 = 0,
                file: StaticString = #filePath, line: UInt = #line) throws -> (out: URL, stderr: String) {
        let out = folder.appendingPathComponent(name)
        let dir = Self.fixtures.path
        // Not --quiet: it would hide the fallback note the tests look for.
        let result = try TestscopeProcess.run(["report", "--package-path", dir, "--path-equivalence", "/macho,\(dir)",
                                               "--output", out.path, "--format", "text,json,lcov"] + inputs + extra)
        XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
        return (out, result.stderr)
    }

    func profileAndBinary(_ profile: String, _ binary: String) -> [String] {
        ["--profile", Self.fixtures.appendingPathComponent(profile).path, "--binary", fixture(binary).path]
    }

    /// A fixture by name, or an absolute path as it is (the macOS-shaped build folder is made per test).
    func fixture(_ name: String) -> URL { name.hasPrefix("/") ? URL(fileURLWithPath: name) : Self.fixtures.appendingPathComponent(name) }

    /// The build folder SwiftPM leaves on macOS, made in the test's folder from the fixtures (no build folder is
    /// committed): `.build/arm64-apple-macosx/debug/PPackageTests.xctest/Contents/MacOS/PPackageTests` (the
    /// Swift bundle) and `codecov/PPackageTests-1234.profraw` (its ELF twin's profile). Returns `.build` and the bundle.
    func macOSBuild() throws -> (build: URL, bundle: URL) {
        let fm = FileManager.default
        let build = folder.appendingPathComponent("mac/.build"), debug = build.appendingPathComponent("arm64-apple-macosx/debug")
        let bundle = debug.appendingPathComponent("PPackageTests.xctest")
        if !fm.fileExists(atPath: bundle.path) {
            try fm.createDirectory(at: bundle.appendingPathComponent("Contents/MacOS"), withIntermediateDirectories: true)
            try fm.createDirectory(at: debug.appendingPathComponent("codecov"), withIntermediateDirectories: true)
            try fm.copyItem(at: Self.fixtures.appendingPathComponent("swift.arm64.bundle"), to: bundle.appendingPathComponent("Contents/MacOS/PPackageTests"))
            try fm.copyItem(at: Self.fixtures.appendingPathComponent("swift.profraw"), to: debug.appendingPathComponent("codecov/PPackageTests-1234.profraw"))
        }
        return (build, bundle)
    }

    /// The report's files, inputs and creation time left out.
    func comparable(_ out: URL) throws -> [String: [String]] {
        var files: [String: [String]] = [:]
        for name in ["coverage.txt", "coverage.json", "coverage.lcov"] {
            files[name] = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8).split(separator: "\n").map(String.init)
                .filter { !$0.contains("\"inputs\"") && !$0.contains("\"createdAt\"") }
        }
        return files
    }

    /// The per-line counts (`DA:`) and line totals of an LCOV file.
    func lineCounts(_ url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("DA:") || $0.hasPrefix("LF:") || $0.hasPrefix("LH:") }
    }

    func testEveryMachOFixtureHasLLVMCovsLineCountsAndTheELFTwinsReports() throws {
        for (language, files) in [("c", cFiles), ("swift", swiftFiles)] {
            for profile in ["\(language).profdata", "\(language).profraw"] {
                let twin = try report(profileAndBinary(profile, "\(language).elf"), name: "\(profile)-elf").out
                let twinReports = try comparable(twin)
                XCTAssertGreaterThan(try lineCounts(twin.appendingPathComponent("coverage.lcov")).count, 10)
                for binary in files {
                    let name = (binary as NSString).lastPathComponent
                    let (out, stderr) = try report(profileAndBinary(profile, binary), name: "\(profile)-\(name)")
                    XCTAssertFalse(stderr.contains("using llvm-cov instead"), "\(binary): \(stderr)")
                    let expected = name == "c.universal.exe" ? "c.universal.exe.x86_64" : name  // this machine's slice
                    XCTAssertEqual(try lineCounts(out.appendingPathComponent("coverage.lcov")),
                                   try lineCounts(Self.fixtures.appendingPathComponent("expected/\(expected).lcov")), binary)
                    XCTAssertEqual(try comparable(out), twinReports, "\(binary) with \(profile)")
                }
            }
        }
    }

    /// A hand-written profile that drives expressions negative: llvm-cov prints 2^64 - n there; Testscope
    /// counts those lines as unknown (0 in LCOV, and a warning), on the Mach-O file as on its ELF twin.
    func testNegativeExpressionsAreUnknownOnMachOAsOnTheELFTwin() throws {
        let (twin, twinErr) = try report(profileAndBinary("c.negative.profdata", "c.elf"), name: "negative-elf")
        let (out, stderr) = try report(profileAndBinary("c.negative.profdata", "c.arm64.exe"), name: "negative-macho")
        XCTAssertEqual(try comparable(out), try comparable(twin))
        XCTAssertTrue(stderr.contains("have an unknown count") && !stderr.contains("using llvm-cov instead"), stderr)
        XCTAssertEqual(stderr, twinErr)
        let llvm = try lineCounts(Self.fixtures.appendingPathComponent("expected/c.arm64.exe.negative.lcov"))
        XCTAssertTrue(llvm.contains { $0.hasPrefix("DA:") && UInt64($0.split(separator: ",")[1])! >= 1 << 63 }, "\(llvm)")
        let unknownAsZero = llvm.map { line -> String in
            let parts = line.split(separator: ",")
            guard line.hasPrefix("DA:"), parts.count == 2, let count = UInt64(parts[1]), count >= 1 << 63 else { return line }
            return "\(parts[0]),0"
        }.filter { !$0.hasPrefix("LH:") }
        XCTAssertEqual(try lineCounts(out.appendingPathComponent("coverage.lcov")).filter { !$0.hasPrefix("LH:") }, unknownAsZero)
    }

    func testEachSliceOfTheUniversalFileAsLLVMCovArchReadsIt() throws {
        for arch in ["arm64", "x86_64"] {
            let (native, stderr) = try report(profileAndBinary("c.profdata", "c.universal.exe"), ["--arch", arch], name: "native-\(arch)")
            XCTAssertFalse(stderr.contains("using llvm-cov instead"), stderr)
            XCTAssertEqual(try lineCounts(native.appendingPathComponent("coverage.lcov")),
                           try lineCounts(Self.fixtures.appendingPathComponent("expected/c.universal.exe.\(arch).lcov")))
            // The llvm-cov engine is given -arch too (without it: "`-arch` specifier is invalid or missing", status 70).
            let llvm = try report(profileAndBinary("c.profdata", "c.universal.exe"), ["--arch", arch, "--engine", "llvm-cov"],
                                  name: "llvm-\(arch)").out
            XCTAssertEqual(try comparable(native), try comparable(llvm), arch)
        }
        // Without --arch the llvm-cov engine reads the slice the native engine chooses (this machine's).
        let native = try report(profileAndBinary("c.profdata", "c.universal.exe"), name: "native-default").out
        let llvm = try report(profileAndBinary("c.profdata", "c.universal.exe"), ["--engine", "llvm-cov"], name: "llvm-default").out
        XCTAssertEqual(try comparable(native), try comparable(llvm))
    }

    func testAnArchitectureTheBinaryLacksIsOneBadInputLine() throws {
        for (binary, engine) in [("c.universal.exe", "native"), ("c.arm64.exe", "native"), ("c.universal.exe", "llvm-cov")] {
            let (_, stderr) = try report(profileAndBinary("c.profdata", binary), ["--arch", "i386", "--engine", engine],
                                         name: "i386-\(binary)-\(engine)", status: 65)
            let lines = stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, stderr)
            XCTAssertTrue(stderr.hasPrefix("testscope: error: cannot read ") && stderr.contains(binary) && stderr.contains("--arch"), stderr)
        }
    }

    /// A damaged Mach-O or universal file: one `testscope: error:` line naming it, status 65 (bad input).
    func testDamagedMachOFilesAreOneBadInputLine() throws {
        let exe = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("c.arm64.exe")))
        var universal = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("c.universal.exe")))
        universal[4...7] = [0xff, 0xff, 0xff, 0xff]  // nfat_arch
        for (name, bytes) in [("cut.exe", Array(exe.prefix(600))), ("hostile.universal", universal)] {
            let path = folder.appendingPathComponent(name)
            try Data(bytes).write(to: path)
            let (_, stderr) = try report(["--profile", Self.fixtures.appendingPathComponent("c.profdata").path, "--binary", path.path],
                                         name: "out-\(name)", status: 65)
            XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
            XCTAssertTrue(stderr.hasPrefix("testscope: error: cannot read \(path.path): "), stderr)
        }
    }

    /// A macOS test bundle (a folder) given as --binary, and a macOS-shaped build folder: read natively.
    func testXCTestBundleAndMacOSBuildFolderAreReadNatively() throws {
        let (build, bundleFolder) = try macOSBuild()
        let bundle = bundleFolder.path
        let twin = try comparable(try report(profileAndBinary("swift.profraw", "swift.elf"), name: "twin").out)
        let (bundleOut, bundleErr) = try report(profileAndBinary("swift.profraw", bundle), name: "bundle")
        XCTAssertFalse(bundleErr.contains("using llvm-cov instead"), bundleErr)
        XCTAssertEqual(try comparable(bundleOut), twin)
        let (buildOut, buildErr) = try report(["--build-path", build.path], name: "build")
        XCTAssertFalse(buildErr.contains("using llvm-cov instead"), buildErr)
        XCTAssertEqual(try comparable(buildOut), twin)
        // A bundle without its executable: one line saying what is missing.
        let empty = folder.appendingPathComponent("Empty.xctest")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let (_, emptyErr) = try report(["--profile", Self.fixtures.appendingPathComponent("swift.profraw").path, "--binary", empty.path],
                                       name: "empty", status: 65)
        XCTAssertEqual(emptyErr, "testscope: error: cannot read \(empty.path): the bundle has no Contents/MacOS/Empty; pass the test binary inside it\n")
    }

    /// Without binary IDs (Darwin's raw profiles; the ELF twin linked without a build ID), the profile
    /// of another build of the same source (`swift.stale.profraw`: `classify` has one more counter) is
    /// one 65 line naming the binary and the profile, as a build-ID mismatch is; reported anyway with
    /// --allow-mismatched-profile (a warning), and the twin's own profile passes.
    func testAProfileOfAnotherBuildWithoutBinaryIDsIsOneBadInputLine() throws {
        let stale = Self.fixtures.appendingPathComponent("swift.stale.profraw").path
        for binary in ["swift.arm64.exe", "swift.elf", try macOSBuild().bundle.path] {
            let path = fixture(binary).path
            let name = URL(fileURLWithPath: binary).lastPathComponent
            let (out, stderr) = try report(profileAndBinary("swift.stale.profraw", binary), name: "stale-\(name)", status: 65)
            XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
            XCTAssertTrue(stderr.hasPrefix("testscope: error: the profile (\(stale)) was recorded by another build than "), stderr)
            XCTAssertTrue(stderr.contains(path) && stderr.contains("classify") && stderr.contains("--allow-mismatched-profile"), stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("coverage.json").path))
            let (allowed, warning) = try report(profileAndBinary("swift.stale.profraw", binary), ["--allow-mismatched-profile"],
                                                name: "stale-allowed-\(name)")
            XCTAssertTrue(warning.contains("testscope: warning: the profile (\(stale)) was recorded by another build than ")
                          && warning.contains("(reporting anyway: --allow-mismatched-profile)"), warning)
            XCTAssertTrue(FileManager.default.fileExists(atPath: allowed.appendingPathComponent("coverage.json").path))
            let (_, own) = try report(profileAndBinary("swift.profraw", binary), name: "own-\(name)")
            XCTAssertFalse(own.contains("another build"), own)
            // This build's profile first, an older build's after it (raw profiles left in `codecov/`): its
            // mismatched records are left out, with one warning, and the report is this build's.
            let (mixed, both) = try report(profileAndBinary("swift.profraw", binary) + ["--profile", stale], name: "mixed-\(name)")
            XCTAssertTrue(both.contains("testscope: warning: 1 function(s) in \(stale) have another number of counters than in the profiles read before"),
                          both)
            // The same lines covered (the older build's other functions add their counts, as llvm-profdata's merge does).
            XCTAssertEqual(try comparable(mixed)["coverage.lcov"]?.filter { $0.hasPrefix("LH:") || $0.hasPrefix("LF:") },
                           try comparable(folder.appendingPathComponent("own-\(name)"))["coverage.lcov"]?.filter { $0.hasPrefix("LH:") || $0.hasPrefix("LF:") })
        }
    }
}
