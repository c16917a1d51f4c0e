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
}

/// Runs `swift test` with coverage, parses its output live, kills a test that exceeds the time
/// limit, and relaunches the test binary for the tests a crash or a kill left unrun, so that one
/// crash does not hide the results of all the others.
public final class TestRunCoordinator: @unchecked Sendable {
    let request: TestRunRequest
    let note: (String) -> Void
    private let lock = NSLock()
    private var xctest = XCTestConsoleParser()
    private var startedSeen: Date?
    private var killed: (key: String, framework: TestFramework)?
    private var streamFile: URL?
    private var stream = SwiftTestingEventStream()
    private var streamOffset: UInt64 = 0
    private var streamSeen: [String: Date] = [:]
    private var childPID: Int32 = 0
    private var directChild = false
    private var environment: [String: String]

    public init(request: TestRunRequest, note: @escaping (String) -> Void) {
        self.request = request
        self.note = note
        var env = ProcessInfo.processInfo.environment
        if env["SWIFT_BACKTRACE"] == nil { env["SWIFT_BACKTRACE"] = "interactive=no" }
        env["SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED"] = "1"
        environment = env
    }

    public func run(log: AtomicFileWriter) throws -> TestRunOutput {
        let started = Date().addingTimeInterval(-1)
        let events = request.artifacts.appendingPathComponent("swift-testing-events.jsonl")
        try? FileManager.default.removeItem(at: events)
        var arguments = ["test"] + request.buildArguments + ["--enable-code-coverage"]
        for f in request.filters { arguments += ["--filter", f] }
        for s in request.skips { arguments += ["--skip", s] }
        arguments += ["--event-stream-output-path", events.path] + request.extraArguments
        let result = try runWatched(arguments: arguments, executable: request.swift, events: events, log: log, direct: false)
        var results = TestRunResults(startedAt: started)
        var pending = collect(result: result, into: &results)

        let bin = try? ProcessRunner.run(request.swift, ["build"] + request.buildArguments + ["--show-bin-path"])
        let binPath = bin.map { URL(fileURLWithPath: $0.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let binary = binPath.flatMap(Self.testBinary(in:))
        var profiles = binPath.map { Self.profiles(in: $0.appendingPathComponent("codecov"), since: started) } ?? []

        if pending.interrupted, let binary {
            let listed = try listTests().applying(filters: request.filters, skips: request.skips)
            var remainingXC = listed.xctest.filter { !pending.doneXC.contains(Self.key(ofSpecifier: $0)) }
            var remainingST = listed.swiftTesting.filter { !pending.doneST.contains($0) }
            var round = 0
            let profileDir = request.artifacts.appendingPathComponent("profiles")
            try? FileManager.default.createDirectory(at: profileDir, withIntermediateDirectories: true)
            while (!remainingXC.isEmpty || !remainingST.isEmpty) && round < listed.xctest.count + listed.swiftTesting.count + 2 {
                round += 1
                results.relaunches += 1
                environment["LLVM_PROFILE_FILE"] = profileDir.appendingPathComponent("relaunch-\(round)-%p.profraw").path
                if !remainingXC.isEmpty {
                    note("relaunching the test binary for \(remainingXC.count) XCTest test(s) that had not run")
                    let r = try runWatched(arguments: [remainingXC.joined(separator: ",")], executable: binary,
                                           events: nil, log: log, direct: true)
                    let done = collect(result: r, into: &results)
                    remainingXC.removeAll { done.doneXC.contains(Self.key(ofSpecifier: $0)) }
                    if !done.interrupted { remainingXC = [] }
                } else {
                    note("relaunching the test binary for \(remainingST.count) Swift Testing test(s) that had not run")
                    let file = request.artifacts.appendingPathComponent("relaunch-\(round)-events.jsonl")
                    var args = ["--testing-library", "swift-testing", "--event-stream-output-path", file.path]
                    for id in remainingST { args += ["--filter", "^" + NSRegularExpression.escapedPattern(for: id) + "(/|$)"] }
                    let r = try runWatched(arguments: args, executable: binary, events: file, log: log, direct: true)
                    let done = collect(result: r, into: &results)
                    remainingST.removeAll { done.doneST.contains($0) }
                    if !done.interrupted { remainingST = [] }
                }
            }
            profiles += Self.profiles(in: profileDir, since: started)
        }
        pending.interrupted = false
        return TestRunOutput(results: results, swiftTestStatus: result.status, swiftTestStderr: result.stderrText,
                             binPath: binPath, testBinary: binary, profiles: profiles)
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
            let crash = xctest.crashOutsideTests
            let culprit: String?
            if let killedNow, killedNow.framework == .swiftTesting {
                culprit = killedNow.key
            } else {
                culprit = inFlight.first { id in
                    let parts = SwiftTestingEventStream.split(id)
                    let needle = [parts.suite, parts.name].compactMap { $0 }.joined(separator: ".")
                    return crash?.frames.contains { $0.contains(needle) } ?? false
                } ?? (inFlight.count == 1 ? inFlight[0] : nil)
            }
            if let culprit {
                let timedOut = killedNow?.framework == .swiftTesting
                var evidence = crash ?? CrashEvidence()
                if evidence.signal == nil { evidence.signal = timedOut ? 9 : signal }
                if timedOut { evidence.reason = "killed after the \(request.testTimeout.map { "\($0) s" } ?? "") timeout" }
                let seen = streamSeen[culprit].map { Date().timeIntervalSince($0) }
                let r = stream.interruptedResult(culprit, outcome: timedOut ? .timedOut : .crashed, crash: evidence,
                                                 duration: timedOut ? request.testTimeout : seen)
                results.merge([r])
                collected.doneST.insert(r.id)
            }
        }
        // Reset the per-process state.
        xctest = XCTestConsoleParser(moduleForClass: xctest.moduleForClass)
        stream = SwiftTestingEventStream()
        streamFile = nil
        streamOffset = 0
        streamSeen = [:]
        killed = nil
        return collected
    }

    /// Runs one process with output streamed, parsed, logged and watched for the time limit.
    private func runWatched(arguments: [String], executable: URL, events: URL?, log: AtomicFileWriter, direct: Bool) throws -> ProcessResult {
        lock.lock()
        streamFile = events
        directChild = direct
        if xctest.moduleForClass.isEmpty, let list = try? listTests() { xctest.moduleForClass = list.moduleForClass }
        lock.unlock()
        let done = DispatchSemaphore(value: 0)
        let watchdog = Thread { [weak self] in
            while done.wait(timeout: .now() + 0.25) == .timedOut { self?.tick() }
        }
        watchdog.start()
        defer { done.signal() }
        return try ProcessRunner.stream(
            executable, arguments, environment: environment, echo: request.echo,
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
        if directChild { kill(childPID, SIGKILL) } else { ProcessTree.killDescendants(of: childPID) }
    }

    private func readStream(_ file: URL) {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: streamOffset)
        let data = handle.readDataToEndOfFile()
        guard let lastNewline = data.lastIndex(of: 0x0A) else { return }
        let complete = data[data.startIndex...lastNewline]
        streamOffset += UInt64(complete.count)
        for line in String(decoding: complete, as: UTF8.self).split(separator: "\n") {
            stream.consume(String(line))
        }
        let now = Date()
        for id in stream.inFlight where streamSeen[id] == nil { streamSeen[id] = now }
    }

    private var cachedList: TestList?

    /// `swift test list` without rebuilding (same flags as the run, so nothing is recompiled).
    public func listTests() throws -> TestList {
        if let cachedList { return cachedList }
        let result = try ProcessRunner.run(request.swift, ["test", "list", "--skip-build", "--enable-code-coverage"] + request.buildArguments)
        guard result.succeeded else {
            throw TestResultsError.testListFailed(detail: result.stderrText.split(separator: "\n").last.map(String.init) ?? "exit \(result.status)")
        }
        let list = TestList.parse(result.stdoutText)
        cachedList = list
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
