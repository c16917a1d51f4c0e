import Foundation
import TestscopeExecution
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// Linux only: survivors are found in /proc, and the typed Ctrl-C opens a pseudo-terminal with Linux's ioctls.
#if os(Linux)
/// Interruption and runaway tests on the Runaway fixture (sample-profiles/packages/Runaway): Ctrl-C,
/// SIGTERM and SIGHUP stop `run` and `report` within seconds with status 130, leaving no process and
/// no temporary file; a test that leaves `/bin/sleep 600` running neither hangs `run` nor outlives it.
/// Every process testscope starts inherits a marker in its environment, so survivors are found in /proc.
final class ReliabilityTests: XCTestCase {
    static let package = TestscopeProcess.samples.appendingPathComponent("packages/Runaway")
    var output: URL!
    let marker = "TESTSCOPE_RELIABILITY_MARKER"
    var markerValue = ""

    override func setUpWithError() throws {
        output = try TestscopeProcess.temporaryDirectory("reliability")
        markerValue = UUID().uuidString
    }

    override func tearDown() {
        for pid in survivors() { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: output)
        super.tearDown()
    }

    // MARK: - Signals

    /// Ctrl-C as a terminal sends it (SIGINT to testscope's whole process group) while a test sleeps.
    func testCtrlCToTheProcessGroupStopsRunWithin5Seconds() throws {
        try assertInterruptedWhileATestSleeps(signal: SIGINT, toGroup: true, name: "SIGINT")
    }

    /// A real Ctrl-C: testscope on a pseudo-terminal of its own (its controlling terminal, its group
    /// the foreground one), and the ^C character typed into it: the terminal driver sends SIGINT.
    func testCtrlCTypedIntoTheTerminalStopsRun() throws {
        try Self.buildOnce()
        // posix_openpt/unlockpt/ptsname, as ioctls (Swift's Glibc does not import those functions).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        XCTAssertGreaterThanOrEqual(master, 0)
        defer { close(master) }
        var unlock: Int32 = 0
        XCTAssertEqual(ioctl(master, UInt(0x4004_5431), &unlock), 0)  // TIOCSPTLCK
        var number: UInt32 = 0
        XCTAssertEqual(ioctl(master, UInt(0x8004_5430), &number), 0)  // TIOCGPTN
        let slave = "/dev/pts/\(number)"
        var before = termios()
        XCTAssertEqual(tcgetattr(master, &before), 0)
        let child = try launch(["run", "--package-path", Self.package.path, "--output", output.path],
                               environment: ["RUNAWAY_SLEEP": "1"], terminal: slave)
        defer { child.killGroup() }
        // Drain what testscope prints to the terminal, so it never blocks on a full terminal buffer.
        let printed = Locked(Data())
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n <= 0 { break }
                printed.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
        }
        reader.start()
        XCTAssertNotNil(waitFor(seconds: 300) { self.marked(containing: "PackageTests.xctest").first }, "the test binary never started")
        XCTAssertNotNil(waitFor(seconds: 60) {
            // On a terminal the running test is on the status line (the raw `Test Case` lines are in the log only).
            String(decoding: printed.withLock { $0 }, as: UTF8.self).contains("WhenAsked\r") ? true : nil
        }, "the sleeping test never started:\n\(String(decoding: printed.withLock { $0 }, as: UTF8.self).suffix(2000))")
        let sent = Date()
        XCTAssertEqual(write(master, [0x03], 1), 1)
        XCTAssertEqual(child.wait(seconds: 30), LaunchedTestscope.Status.exited(130))
        XCTAssertLessThan(Date().timeIntervalSince(sent), 5)
        XCTAssertEqual(survivors(), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.contains(".tmp") }, [])
        Thread.sleep(forTimeInterval: 0.2)
        let text = String(decoding: printed.withLock { $0 }, as: UTF8.self)
        XCTAssertTrue(text.contains("testscope: error: interrupted by SIGINT;"), text)
        var after = termios()
        XCTAssertEqual(tcgetattr(master, &after), 0)
        XCTAssertEqual([after.c_iflag, after.c_oflag, after.c_cflag, after.c_lflag], [before.c_iflag, before.c_oflag, before.c_cflag, before.c_lflag],
                       "the terminal's settings are as before")
    }

    /// `kill -INT` / `kill -TERM` / a closed terminal's SIGHUP to testscope alone: the test processes,
    /// in groups of their own, are stopped by testscope.
    func testSIGINTSIGTERMAndSIGHUPToTestscopeAloneStopRunWithin5Seconds() throws {
        for (signal, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")] {
            try assertInterruptedWhileATestSleeps(signal: signal, toGroup: false, name: name)
        }
    }

    private func assertInterruptedWhileATestSleeps(signal: Int32, toGroup: Bool, name: String,
                                                   file: StaticString = #filePath, line: UInt = #line) throws {
        try Self.buildOnce()
        let child = try launch(["run", "--package-path", Self.package.path, "--output", output.path], environment: ["RUNAWAY_SLEEP": "1"])
        defer { child.killGroup() }
        // The build is done (buildOnce); wait for the test binary, then for it to be in the sleeping test.
        let testBinary = try XCTUnwrap(waitFor(seconds: 300) { self.marked(containing: "PackageTests.xctest").first }, "the test binary never started", file: file, line: line)
        Thread.sleep(forTimeInterval: 1)
        let logs = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix(".swift-test.log.tmp-") }
        XCTAssertEqual(logs.count, 1, "the log is written to a temporary file while the run goes on", file: file, line: line)
        let sent = Date()
        kill(toGroup ? -child.pid : child.pid, signal)
        let status = child.wait(seconds: 30)
        let elapsed = Date().timeIntervalSince(sent)
        XCTAssertEqual(status, .exited(130), "\(name): \(child.stderr)", file: file, line: line)
        XCTAssertLessThan(elapsed, 5, "\(name): testscope must stop within 5 s", file: file, line: line)
        XCTAssertEqual(survivors(), [], "\(name): no process testscope started may survive (the test binary was \(testBinary))", file: file, line: line)
        let left = try FileManager.default.contentsOfDirectory(atPath: output.path)
        XCTAssertEqual(left.filter { $0.contains(".tmp") }, [], "\(name): no temporary file may stay", file: file, line: line)
        XCTAssertFalse(left.contains("swift-testing-events.jsonl") || left.contains("profiles"), "\(name): nothing half-written stays: \(left)", file: file, line: line)
        XCTAssertTrue(child.stderr.contains("testscope: error: interrupted by \(name);"), child.stderr, file: file, line: line)
        XCTAssertFalse(child.stderr.contains("relaunching"), "an interrupted run does not go on: \(child.stderr)", file: file, line: line)
    }

    /// Ctrl-C during a `run` into the folder of a complete run leaves that run as it was: its record,
    /// profiles, event streams and test list, so `report` renders it again (the interrupted run had
    /// deleted its profiles and kept its record: `report` exited 65).
    func testAnInterruptedRunLeavesTheLastCompleteRunRenderable() throws {
        try Self.buildOnce()
        let first = try TestscopeProcess.run(["run", "--package-path", Self.package.path, "--output", output.path, "--format", "json", "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        func read(_ name: String) throws -> Data { try Data(contentsOf: output.appendingPathComponent(name)) }
        func results() throws -> [String] {
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: read("tests.json")) as? [String: Any])
            return ((json["tests"] as? [[String: Any]]) ?? []).map { "\($0["id"] as? String ?? "?") \($0["outcome"] as? String ?? "?")" }.sorted()
        }
        func totals() throws -> NSDictionary? {
            (try JSONSerialization.jsonObject(with: read("coverage.json")) as? [String: Any])?["totals"] as? NSDictionary
        }
        let (record, runResults, runTotals) = (try read(".testscope-run.json"), try results(), try totals())
        XCTAssertFalse(runResults.isEmpty)

        let child = try launch(["run", "--package-path", Self.package.path, "--output", output.path, "--format", "json"], environment: ["RUNAWAY_SLEEP": "1"])
        defer { child.killGroup() }
        XCTAssertNotNil(waitFor(seconds: 300) { self.marked(containing: "PackageTests.xctest").first }, "the test binary never started")
        Thread.sleep(forTimeInterval: 1)
        kill(child.pid, SIGINT)
        XCTAssertEqual(child.wait(seconds: 30), .exited(130), child.stderr)
        XCTAssertEqual(try read(".testscope-run.json"), record, "the record of the complete run is kept")
        let left = try FileManager.default.contentsOfDirectory(atPath: output.path)
        XCTAssertFalse(left.contains { $0.contains(".tmp") || $0 == ".run-in-progress" }, "nothing of the interrupted run stays: \(left)")

        let again = try TestscopeProcess.run(["report", "--package-path", Self.package.path, "--output", output.path, "--format", "json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try results(), runResults, "the complete run's results")
        XCTAssertEqual(try totals(), runTotals, "the complete run's coverage")
    }

    /// SIGTERM while `swift build` compiles (a fresh scratch folder): the build and its compilers stop too.
    func testSIGTERMDuringTheBuildStopsTheCompilers() throws {
        let scratch = output.appendingPathComponent("scratch")
        let child = try launch(["run", "--package-path", Self.package.path, "--output", output.appendingPathComponent("out").path,
                                "--scratch-path", scratch.path])
        defer { child.killGroup() }
        XCTAssertNotNil(waitFor(seconds: 120) { self.marked(containing: "swift-frontend").first }, "no compiler started")
        let sent = Date()
        kill(child.pid, SIGTERM)
        XCTAssertEqual(child.wait(seconds: 30), .exited(130), child.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(sent), 5)
        XCTAssertEqual(survivors(), [], "swift build and its compilers must be stopped")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("out").path)) ?? []
        XCTAssertEqual(left, [".gitignore"], "the output folder holds nothing from the interrupted run (only the .gitignore of the folder it made)")
    }

    /// Ctrl-C while `flaky --verify-fixes` builds its copy of the FlakyCauses package: the build stops,
    /// the copy and the work folder are removed whole (the verifier's thread had gone on to remove the
    /// copy too, racing the cleanup: half of it stayed), and the package is untouched.
    func testCtrlCDuringFixVerificationRemovesTheCopy() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/FlakyCauses")
        let tests = package.appendingPathComponent("Tests/FlakyCausesTests/OrderDependentTests.swift")
        let before = try Data(contentsOf: tests)
        let out = output.appendingPathComponent("out-fixes")
        let child = try launch(["flaky", "--package-path", package.path, "--filter", "FlagTests", "--seed", "1", "--runs", "2",
                                "--verify-fixes", "--output", out.path])
        defer { child.killGroup() }
        XCTAssertNotNil(waitFor(seconds: 300) { self.marked(containing: "fix-copy/Sources/").first },
                        "the copy's build never started")
        let sent = Date()
        kill(-child.pid, SIGINT)
        XCTAssertEqual(child.wait(seconds: 30), .exited(130), child.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(sent), 5)
        XCTAssertEqual(survivors(), [], "swift build and its compilers must be stopped")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        XCTAssertFalse(left.contains("flaky-work"), "the copy of the package is removed: \(left)")
        XCTAssertEqual(try Data(contentsOf: tests), before)
    }

    /// A second Ctrl-C (an impatient user) while the first one is being handled: it kills at once;
    /// still 130, nothing left running, nothing half-written.
    func testASecondCtrlCKillsAtOnce() throws {
        let scratch = output.appendingPathComponent("scratch2")
        let child = try launch(["run", "--package-path", Self.package.path, "--output", output.appendingPathComponent("out2").path,
                                "--scratch-path", scratch.path])
        defer { child.killGroup() }
        XCTAssertNotNil(waitFor(seconds: 120) { self.marked(containing: "swift-frontend").first }, "no compiler started")
        let sent = Date()
        kill(child.pid, SIGINT)
        usleep(20_000)
        kill(child.pid, SIGINT)
        XCTAssertEqual(child.wait(seconds: 30), .exited(130), child.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(sent), 5)
        XCTAssertEqual(survivors(), [], "the second signal kills the build at once")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("out2").path)) ?? []
        XCTAssertEqual(left, [".gitignore"], "the output folder holds nothing from the interrupted run (only the .gitignore of the folder it made)")
    }

    /// `report` interrupted while llvm-profdata (here a stand-in that writes half its output and
    /// hangs) merges: the tool is stopped and its half-written output removed.
    func testCtrlCStopsReportAndRemovesTheHalfWrittenMerge() throws {
        let binary = try Self.buildOnce()
        let fake = output.appendingPathComponent("fake-llvm-profdata")
        try Data("""
            #!/bin/sh
            while [ $# -gt 0 ]; do
              if [ "$1" = "-o" ]; then printf 'partial' > "$2"; fi
              shift
            done
            exec /bin/sleep 600

            """.utf8).write(to: fake)
        chmod(fake.path, 0o755)
        let profile = output.appendingPathComponent("input.profraw")
        try Data(count: 64).write(to: profile)
        let reports = output.appendingPathComponent("reports")
        let child = try launch(["report", "--engine", "llvm-cov", "--llvm-profdata", fake.path, "--profile", profile.path,
                                "--binary", binary.path, "--package-path", Self.package.path, "--output", reports.path])
        defer { child.killGroup() }
        let partial = reports.appendingPathComponent(".default.profdata.tmp")
        XCTAssertNotNil(waitFor(seconds: 60) { FileManager.default.fileExists(atPath: partial.path) ? true : nil }, child.stderr)
        let sent = Date()
        kill(-child.pid, SIGINT)
        XCTAssertEqual(child.wait(seconds: 30), .exited(130), child.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(sent), 5)
        XCTAssertEqual(survivors(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path), "the half-written merge is removed")
    }

    // MARK: - Runaway tests

    /// Tests (XCTest and Swift Testing) that start `/bin/sleep 600` and return: `run` finishes as for a
    /// passing run, a warning names each test, and no sleep survives.
    func testATestThatLeavesAProcessBehindDoesNotHangTheRun() throws {
        try Self.buildOnce()
        let child = try launch(["run", "--package-path", Self.package.path, "--output", output.path, "--format", "json"],
                               environment: ["RUNAWAY_ORPHAN": "1", "RUNAWAY_ORPHAN_ST": "1"])
        defer { child.killGroup() }
        let status = child.wait(seconds: 300)
        XCTAssertEqual(status, .exited(0), "run must finish (watchdog 300 s): \(child.stderr)")
        let warnings = child.stderr.split(separator: "\n").filter { $0.contains("running after its test process ended") }
        XCTAssertEqual(warnings.count, 2, child.stderr)
        XCTAssertTrue(warnings.contains { $0.hasPrefix("testscope: warning: RunawayTests.RunawayXCTests/testC_leavesAProcessBehind left a process") && $0.contains("/bin/sleep 600") }, child.stderr)
        // Swift Testing runs in parallel: a test running at the same moment could be named beside it.
        XCTAssertTrue(warnings.contains { $0.contains("RunawayTests.leavesAProcessBehind() left a process") && $0.contains("/bin/sleep 600") }, child.stderr)
        XCTAssertEqual(survivors(), [], "the sleeps must be killed")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])
        let outcomes = Set(((json["tests"] as? [[String: Any]]) ?? []).compactMap { $0["outcome"] as? String })
        XCTAssertEqual(outcomes, ["passed"])
    }

    /// `flaky` runs the test processes through the same supervisor: the sleep each run leaves is killed,
    /// and the warning is given once, not once per run.
    func testFlakyKillsWhatATestLeftAndWarnsOnce() throws {
        let child = try launch(["flaky", "--package-path", Self.package.path, "--output", output.path, "--runs", "3", "--format", "json"],
                               environment: ["RUNAWAY_ORPHAN": "1"])
        defer { child.killGroup() }
        XCTAssertEqual(child.wait(seconds: 300), .exited(0), "flaky must finish (watchdog 300 s): \(child.stderr)")
        let warnings = child.stderr.split(separator: "\n").filter { $0.contains("running after its test process ended") }
        XCTAssertEqual(warnings.count, 1, child.stderr)
        // Runs in parallel: one process's sweep may find another's sleep too ("left 2 processes"), and
        // date it into several of its tests ("testC … or testB … left"): the warning names testC.
        XCTAssertTrue(warnings.first?.hasPrefix("testscope: warning: ") == true, child.stderr)
        XCTAssertTrue(warnings.first?.contains("RunawayTests.RunawayXCTests/testC_leavesAProcessBehind") == true, child.stderr)
        XCTAssertEqual(survivors(), [], "the sleeps of every run must be killed")
    }

    // MARK: - The package root

    /// `run` in a subfolder of the package, without --package-path: the package root is found as
    /// `swift build` finds it, and the pages name the package after its manifest (`RunawayProcesses`),
    /// not its folder (`Runaway`).
    func testRunFromASubfolderFindsThePackageAndNamesItAfterTheManifest() throws {
        try Self.buildOnce()
        let result = try TestscopeProcess.run(["run", "--output", output.path, "--format", "html,json"],
                                              in: Self.package.appendingPathComponent("Sources/Runaway"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("running them in \(Self.package.path)"), result.stderr)
        let coverage = try String(contentsOf: output.appendingPathComponent("coverage.json"), encoding: .utf8)
        XCTAssertTrue(coverage.contains("\"Sources/Runaway/Runaway.swift\""), "the package's sources are found from its root")
        let index = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(index.contains("<title>Coverage · RunawayProcesses</title>"), String(index.prefix(600)))
        let tests = try String(contentsOf: output.appendingPathComponent("tests.html"), encoding: .utf8)
        XCTAssertTrue(tests.contains("<title>Tests · RunawayProcesses</title>"), String(tests.prefix(600)))
    }

    // (report --build-path with an earlier build's profiles in the codecov folder: FixtureTests' ReportOfRealBuildTests.)

    // MARK: - Helpers

    /// Builds and runs the fixture once per test process (the test binary, for `report`).
    @discardableResult
    static func buildOnce() throws -> URL {
        try built.withLock { binary in
            if let binary { return binary }
            let output = try TestscopeProcess.temporaryDirectory("reliability-build")
            defer { try? FileManager.default.removeItem(at: output) }
            let result = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--format", "json", "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let found = try TestscopeProcess.testBinary(ofRunIn: output)
            binary = found
            return found
        }
    }

    private static let built = Locked<URL?>(nil)

    /// Processes (not zombies) whose environment holds this test's marker.
    func survivors() -> [Int32] { markedProcesses().map(\.pid) }

    func marked(containing text: String) -> [Int32] {
        markedProcesses().filter { $0.command.contains(text) }.map(\.pid)
    }

    private func markedProcesses() -> [(pid: Int32, command: String)] {
        let needle = Data("\(marker)=\(markerValue)".utf8)
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let pid = Int32(name),
                  let environ = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(name)/environ")), environ.range(of: needle) != nil,
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")"), stat[stat.index(after: close)...].dropFirst().first != "Z" else { return nil }
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(name)/cmdline"))).map { String(decoding: $0.map { $0 == 0 ? 32 : $0 }, as: UTF8.self) } ?? ""
            return (pid, command)
        }
    }

    func waitFor<T>(seconds: Double, _ probe: () -> T?) -> T? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let value = probe() { return value }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    /// Starts testscope as a terminal starts a job: leading a process group of its own, with the marker.
    func launch(_ arguments: [String], environment extra: [String: String] = [:], terminal: String? = nil) throws -> LaunchedTestscope {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment[marker] = markerValue
        // On a terminal, as a user at it: CI's variables (set where the suite runs in CI) turn the status line off.
        if terminal != nil { for key in ["CI", "GITHUB_ACTIONS", "COLUMNS"] { environment.removeValue(forKey: key) } }
        for (key, value) in extra { environment[key] = value }
        return try LaunchedTestscope(TestscopeProcess.executable, arguments, environment: environment, logs: output.deletingLastPathComponent()
            .appendingPathComponent(output.lastPathComponent + "-logs"), terminal: terminal)
    }
}

#endif

/// testscope started with `posix_spawn` in a new process group, its output in files; or with a
/// terminal, in a session of its own whose controlling terminal that is (standard input, output, error).
final class LaunchedTestscope {
    enum Status: Equatable { case exited(Int32), signaled(Int32), stillRunning }

    let pid: pid_t
    let logs: URL
    private var reaped = false

    init(_ executable: URL, _ arguments: [String], environment: [String: String], logs: URL, terminal: String? = nil) throws {
        self.logs = logs
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        // Darwin's spawn types are opaque pointers that `_init` allocates; glibc's are structs.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if let terminal {
            // A session leader without a controlling terminal gets the first terminal it opens (Linux).
            posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
            posix_spawnattr_setflags(&attributes, Int16(Self.newSession))
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, logs.appendingPathComponent("stdout").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, logs.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let env = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in env { free(p) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, env)
        guard status == 0 else { throw NSError(domain: "posix_spawn", code: Int(status)) }
        self.pid = pid
    }

    /// `POSIX_SPAWN_SETSID`: glibc's spawn.h declares it only under _GNU_SOURCE, which Swift's Glibc
    /// module is not built with, so its value (glibc's, since 2.26) is spelled out there.
    #if canImport(Darwin)
    static let newSession = Int32(POSIX_SPAWN_SETSID)
    #else
    static let newSession: Int32 = 0x80
    #endif

    var stderr: String { (try? String(contentsOf: logs.appendingPathComponent("stderr"), encoding: .utf8)) ?? "" }

    /// Waits up to `seconds` for testscope to end.
    func wait(seconds: Double) -> Status {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid {
                reaped = true
                return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return .stillRunning
    }

    /// Cleanup after a failed assertion: kills the group, reaps testscope, removes the logs.
    func killGroup() {
        if !reaped {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(at: logs)
    }
}
