import Foundation
import TestscopeExecution

/// What to run and where to put the raw artifacts.
public struct TestRunRequest: Sendable {
    public var swift: URL
    /// `--package-path`, `-c`, `--scratch-path`: given to every swift invocation.
    public var buildArguments: [String]
    public var filters: [String]
    public var skips: [String]
    /// Arguments after `--`, for `swift test`.
    public var extraArguments: [String]
    /// Logs, event streams and relaunch profiles go here.
    public var artifacts: URL
    /// Per-test time limit in seconds.
    public var testTimeout: Double?
    public var echo: Bool

    public init(swift: URL, buildArguments: [String], filters: [String] = [], skips: [String] = [],
                extraArguments: [String] = [], artifacts: URL, testTimeout: Double? = nil, echo: Bool = true) {
        self.swift = swift
        self.buildArguments = buildArguments
        self.filters = filters
        self.skips = skips
        self.extraArguments = extraArguments
        self.artifacts = artifacts
        self.testTimeout = testTimeout
        self.echo = echo
    }
}

/// What a test run left behind.
public struct TestRunOutput: Sendable {
    public var results: TestRunResults
    public var swiftTestStatus: Int32
    public var swiftTestStderr: String
    public var binPath: URL?
    public var testBinary: URL?
    /// Raw profiles of every process that exited (SwiftPM's and the relaunches').
    public var profiles: [URL]
    /// True when `swift build --build-tests` failed (nothing ran).
    public var buildFailed: Bool
}

/// Runs the tests with coverage the way `swift test --enable-code-coverage` does (build with
/// coverage, then the test binary for XCTest and for Swift Testing, with `LLVM_PROFILE_FILE`), but
/// runs the binary itself so that its output is parsed live (SwiftPM holds piped test output back
/// until the process ends): a test past the time limit is killed, and the binary is relaunched for
/// the tests a crash or a kill left unrun, so one crash does not hide the results of the others.
public final class TestRunCoordinator: @unchecked Sendable {
    let request: TestRunRequest
    let note: (String) -> Void
    private let lock = NSLock()
    private var xctest = XCTestConsoleParser(live: true)
    private var startedSeen: Date?
    private var killed: (key: String, framework: TestFramework)?
    private var streamFile: URL?
    private var tail = EventStreamTail()
    private var childPID: Int32 = 0
    private var environment: [String: String]

    public init(request: TestRunRequest, note: @escaping (String) -> Void) {
        self.request = request
        self.note = note
        var env = ProcessInfo.processInfo.environment
        if env["SWIFT_BACKTRACE"] == nil { env["SWIFT_BACKTRACE"] = "interactive=no" }
        env["SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED"] = "1"
        // As SwiftPM does: no colours from the test process when our output is not a terminal.
        if isatty(STDOUT_FILENO) == 0 { env["NO_COLOR"] = "1" }
        environment = env
    }

    public func run(log: AtomicFileWriter) throws -> TestRunOutput {
        let started = Date().addingTimeInterval(-1)
        var results = TestRunResults(startedAt: started)
        // 1. Build the tests with coverage, as `swift test --enable-code-coverage` would.
        let (buildExtra, libraries) = Self.splitExtraArguments(request.extraArguments)
        let build = try ProcessRunner.stream(
            request.swift, ["build", "--build-tests", "--enable-code-coverage"] + request.buildArguments + buildExtra,
            environment: environment, echo: request.echo, onLine: { line in try? log.write(line + "\n") })
        guard build.succeeded else {
            return TestRunOutput(results: results, swiftTestStatus: build.status, swiftTestStderr: build.stderrText,
                                 binPath: nil, testBinary: nil, profiles: [], buildFailed: true)
        }
        let bin = try ProcessRunner.run(request.swift, ["build"] + request.buildArguments + buildExtra + ["--show-bin-path"])
        let binPath = URL(fileURLWithPath: bin.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
        guard let binary = Self.testBinary(in: binPath) else {
            return TestRunOutput(results: results, swiftTestStatus: 0, swiftTestStderr: "no tests found", binPath: binPath,
                                 testBinary: nil, profiles: [], buildFailed: false)
        }
        // 2. The tests, from the binary itself; SwiftPM's --filter/--skip semantics.
        let all = try listTests(binary: binary)
        let selected = all.applying(filters: request.filters, skips: request.skips)
        xctest.moduleForClass = all.moduleForClass
        let profileDir = request.artifacts.appendingPathComponent("profiles")
        try? FileManager.default.removeItem(at: profileDir)
        try FileManager.default.createDirectory(at: profileDir, withIntermediateDirectories: true)
        var status: Int32 = 0

        // 3. XCTest, then Swift Testing, each relaunched for the tests a crash or a kill left unrun.
        var remainingXC = libraries.xctest ? selected.xctest : []
        var first = true
        while !remainingXC.isEmpty {
            if !first {
                results.relaunches += 1
                note("relaunching the test binary for \(remainingXC.count) XCTest test(s) that had not run")
            }
            environment["LLVM_PROFILE_FILE"] = profileDir.appendingPathComponent("xctest-%p.profraw").path
            let everything = first && request.filters.isEmpty && request.skips.isEmpty
            let r = try runWatched(arguments: everything ? [] : [remainingXC.joined(separator: ",")], executable: binary,
                                   events: nil, log: log)
            if !r.succeeded { status = r.status }
            let done = collect(result: r, into: &results)
            remainingXC.removeAll { done.doneXC.contains(Self.key(ofSpecifier: $0)) }
            if !done.interrupted { break }
            first = false
        }
        var remainingST = libraries.swiftTesting ? selected.swiftTesting : []
        first = true
        var round = 0
        while !remainingST.isEmpty {
            round += 1
            if !first {
                results.relaunches += 1
                note("relaunching the test binary for \(remainingST.count) Swift Testing test(s) that had not run")
            }
            environment["LLVM_PROFILE_FILE"] = profileDir.appendingPathComponent("swift-testing-%p.profraw").path
            let file = request.artifacts.appendingPathComponent(first ? "swift-testing-events.jsonl" : "swift-testing-events-\(round).jsonl")
            try? FileManager.default.removeItem(at: file)
            var args = ["--testing-library", "swift-testing", "--event-stream-output-path", file.path]
            if first {
                for f in request.filters { args += ["--filter", f] }
                for s in request.skips { args += ["--skip", s] }
            } else {
                for id in remainingST { args += ["--filter", "^" + NSRegularExpression.escapedPattern(for: id) + "(/|$)"] }
            }
            let r = try runWatched(arguments: args, executable: binary, events: file, log: log)
            // Swift Testing exits 69 (EX_UNAVAILABLE) when no test matched.
            if !r.succeeded && !(r.status == 69 && !r.terminatedBySignal) { status = r.status }
            let done = collect(result: r, into: &results)
            remainingST.removeAll { done.doneST.contains($0) }
            if !done.interrupted { break }
            first = false
        }
        return TestRunOutput(results: results, swiftTestStatus: status, swiftTestStderr: "", binPath: binPath,
                             testBinary: binary, profiles: Self.profiles(in: profileDir, since: started), buildFailed: false)
    }

    /// Arguments after `--` go to `swift build`, except the testing-library switches, which choose the phases.
    static func splitExtraArguments(_ arguments: [String]) -> (build: [String], libraries: (xctest: Bool, swiftTesting: Bool)) {
        var build: [String] = []
        var xctest = true, swiftTesting = true
        for argument in arguments {
            switch argument {
            case "--disable-xctest": xctest = false
            case "--disable-swift-testing": swiftTesting = false
            case "--enable-xctest", "--enable-swift-testing", "--parallel", "--no-parallel": break
            default: build.append(argument)
            }
        }
        return (build, (xctest, swiftTesting))
    }

    struct Collected {
        var doneXC: Set<String> = []
        var doneST: Set<String> = []
        var interrupted = false
    }

    /// Turns one process's parsed output into results; tells what ended and whether it was cut short.
    private func collect(result: ProcessResult, into results: inout TestRunResults) -> Collected {
        lock.lock(); defer { lock.unlock() }
        var collected = Collected()
        let killedNow = killed
        let signal = result.terminatedBySignal ? Int(result.status) : nil
        let xcRunning = xctest.running
        xctest.finish(signal: killedNow?.framework == .xctest ? 9 : signal, timedOut: killedNow?.framework == .xctest,
                      timeout: request.testTimeout)
        if xcRunning != nil { collected.interrupted = true }
        results.merge(xctest.results)
        collected.doneXC = Set(xctest.results.map { "\($0.suite ?? "").\($0.name)" })

        if let file = streamFile { readStream(file) }
        let stResults = stream.results()
        results.merge(stResults)
        collected.doneST = Set(stResults.map(\.id))
        let inFlight = stream.inFlight
        if !inFlight.isEmpty || (stream.runStarted && !stream.runEnded) { collected.interrupted = true }
        if !inFlight.isEmpty {
            let killedST = killedNow?.framework == .swiftTesting ? killedNow?.key : nil
            if let culprit = stream.blame(killed: killedST, crash: xctest.crashOutsideTests, orFirst: false) {
                let r = stream.interruptedResult(culprit, timedOut: killedST != nil, crash: xctest.crashOutsideTests, signal: signal,
                                                 timeout: request.testTimeout, firstSeen: streamSeen[culprit])
                results.merge([r])
                collected.doneST.insert(r.id)
            }
        }
        // Reset the per-process state.
        xctest = XCTestConsoleParser(moduleForClass: xctest.moduleForClass, live: true)
        tail = EventStreamTail()
        streamFile = nil
        killed = nil
        return collected
    }

    /// Runs one process with output streamed, parsed, logged and watched for the time limit.
    private func runWatched(arguments: [String], executable: URL, events: URL?, log: AtomicFileWriter) throws -> ProcessResult {
        lock.lock()
        streamFile = events
        lock.unlock()
        let done = DispatchSemaphore(value: 0)
        let watchdog = Thread { [weak self] in
            while done.wait(timeout: .now() + 0.25) == .timedOut { self?.tick() }
        }
        watchdog.start()
        defer { done.signal() }
        return try ProcessRunner.stream(
            executable, arguments, environment: environment, echo: request.echo, mergeStderr: true,
            onStart: { [weak self] pid in self?.lock.lock(); self?.childPID = pid; self?.lock.unlock() },
            onLine: { [weak self] line in
                guard let self else { return }
                self.lock.lock()
                try? log.write(line + "\n")
                let before = self.xctest.running
                self.xctest.consume(line)
                if self.xctest.running != nil, self.xctest.running != before { self.startedSeen = Date() }
                self.lock.unlock()
            })
    }

    /// The watchdog: reads new stream records and kills a test that has run past the limit.
    private func tick() {
        lock.lock(); defer { lock.unlock() }
        if let file = streamFile { readStream(file) }
        guard let limit = request.testTimeout, killed == nil, childPID > 0 else { return }
        if let running = xctest.running, let since = startedSeen, Date().timeIntervalSince(since) > limit {
            killed = (running.key, .xctest)
            note("\(running.key) exceeded the \(limit) s test timeout; killing the test process")
            killChild()
            return
        }
        for id in stream.inFlight {
            if let since = streamSeen[id], Date().timeIntervalSince(since) > limit {
                killed = (id, .swiftTesting)
                note("\(SwiftTestingEventStream.split(id).specifier) exceeded the \(limit) s test timeout; killing the test process")
                killChild()
                return
            }
        }
    }

    private func killChild() {
        ProcessTree.killDescendants(of: childPID)
        kill(childPID, SIGKILL)
    }

    private func readStream(_ file: URL) {
        tail.read(file)
    }

    private var stream: SwiftTestingEventStream { tail.stream }
    private var streamSeen: [String: Date] { tail.firstSeen }

    /// The tests in the binary: `--list-tests` of XCTest and of Swift Testing.
    public func listTests(binary: URL) throws -> TestList {
        let xc = try ProcessRunner.run(binary, ["--list-tests"], environment: environment)
        guard xc.succeeded else {
            throw TestResultsError.testListFailed(detail: "\(binary.lastPathComponent) --list-tests exited with \(xc.status)")
        }
        var list = TestList.parse(xc.stdoutText)
        let st = try ProcessRunner.run(binary, ["--testing-library", "swift-testing", "--list-tests"], environment: environment)
        if st.succeeded { list.swiftTesting = TestList.parse(st.stdoutText).swiftTesting }
        return list
    }

    static func key(ofSpecifier specifier: String) -> String {
        // Module.Class/test → Class.test
        guard let slash = specifier.firstIndex(of: "/") else { return specifier }
        let qualified = specifier[..<slash]
        let className = qualified.firstIndex(of: ".").map { qualified[qualified.index(after: $0)...] } ?? qualified
        return "\(className).\(specifier[specifier.index(after: slash)...])"
    }

    static func testBinary(in bin: URL) -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bin.path)) ?? []
        guard let name = names.first(where: { $0.hasSuffix("PackageTests.xctest") }) else { return nil }
        let bundle = bin.appendingPathComponent(name)
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: bundle.path, isDirectory: &isDir), isDir.boolValue {
            let macos = bundle.appendingPathComponent("Contents/MacOS")
            return ((try? FileManager.default.contentsOfDirectory(atPath: macos.path))?.first).map { macos.appendingPathComponent($0) }
        }
        return bundle
    }

    static func profiles(in dir: URL, since: Date) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().map { dir.appendingPathComponent($0) }.filter { url in
            url.pathExtension == "profraw"
                && (((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast) >= since
        }
    }
}
