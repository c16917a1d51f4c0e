/// The per-test recorder in `EntryPointSource`'s main (`testscope run --per-test-coverage`). With
/// `TESTSCOPE_PER_TEST_DIR` set (and not `--list-tests`), the process reads the profile runtime's counters
/// at each test's start and end and appends what changed to `<dir>/<pid>.contexts` (sparse deltas,
/// `PerTestContextFile`), with the counters' layout in `<dir>/<pid>.layout.profraw`
/// (`__llvm_profile_write_buffer`, written once at start).
///
/// Why snapshots rather than `__llvm_profile_reset_counters` + `__llvm_profile_write_file` per test
/// (ci-formats.md E.3): counters are never reset and no file name is changed, so the process's own
/// profile (`LLVM_PROFILE_FILE`) is exactly a normal run's aggregate; a write per test would write
/// every counter of the binary (all of swift-algorithms' for each test), a delta writes what the test ran.
/// The runtime's symbols are hidden from `dlsym` but link statically into a binary built with coverage,
/// which this entry point only ever is. Swift Testing runs through the ABI entry point, serially (the
/// counters are global), with `--filter`/`--skip`/`--event-stream-output-path` taken from the arguments.
/// An exit test's body runs in a child process of the same binary: the parent names the test running
/// in `<dir>/<pid>.running`, and the child writes everything it counted as that test's block at its exit.
extension EntryPointSource {
    static let perTestRecorder = #"""

    // Per-test coverage (testscope run --per-test-coverage).
    @_silgen_name("__llvm_profile_begin_counters") func testscopeBeginCounters() -> UnsafeMutableRawPointer?
    @_silgen_name("__llvm_profile_end_counters") func testscopeEndCounters() -> UnsafeMutableRawPointer?
    @_silgen_name("__llvm_profile_get_size_for_buffer") func testscopeProfileSize() -> UInt64
    @_silgen_name("__llvm_profile_write_buffer") func testscopeWriteProfile(_ buffer: UnsafeMutableRawPointer) -> CInt

    /// Calls `flush` at each XCTest method's start ("outside tests" so far) and end (the test's counts).
    @available(*, deprecated, message: "Not deprecated: allows deprecated tests without warnings")
    final class TestscopeTestObserver: NSObject, XCTestObservation {
        func testCaseWillStart(_ testCase: XCTestCase) { TestscopePerTest.shared?.flush(context: "") }
        func testCaseDidFinish(_ testCase: XCTestCase) {
            let method = testCase.name.split(separator: ".").last.map(String.init) ?? testCase.name
            TestscopePerTest.shared?.flush(context: String(reflecting: type(of: testCase)) + "/" + method)
        }
    }

    @available(*, deprecated, message: "Not deprecated: allows deprecated tests without warnings")
    // @unchecked: `snapshot` and the file are reached only under `lock`.
    final class TestscopePerTest: @unchecked Sendable {
        static let shared: TestscopePerTest? = {
            guard let directory = ProcessInfo.processInfo.environment["TESTSCOPE_PER_TEST_DIR"], !directory.isEmpty,
                  !CommandLine.arguments.contains("--list-tests") else { return nil }
            return TestscopePerTest(directory: directory)
        }()

        private let lock = NSLock()
        private let counters: UnsafeMutablePointer<UInt64>
        private let snapshot: UnsafeMutablePointer<UInt64>
        private let count: Int
        private let file: UnsafeMutablePointer<FILE>
        /// `<dir>/<pid>.running`: the context of the test running now, which an exit test's child reads.
        private let runningPath: String
        /// In an exit test's child: the context of the test that started it (all its counts are that test's).
        let exitTestContext: String?
        private var functions: Set<String> = []
        private var parameterized: Set<String> = []
        private var cases: [String: Int] = [:]

        static func install() {
            guard shared != nil else { return }
            XCTestObservationCenter.shared.addTestObserver(TestscopeTestObserver())
            atexit { TestscopePerTest.shared.map { $0.flush(context: $0.exitTestContext ?? "") } }
        }

        init?(directory: String) {
            guard let begin = testscopeBeginCounters(), let end = testscopeEndCounters(), begin.distance(to: end) >= 0 else { return nil }
            count = begin.distance(to: end) / 8
            counters = begin.bindMemory(to: UInt64.self, capacity: count)
            // From zero: what ran before the first test (static initializers) is "outside tests".
            snapshot = UnsafeMutablePointer<UInt64>.allocate(capacity: max(count, 1))
            snapshot.initialize(repeating: 0, count: max(count, 1))
            let base = directory + "/" + String(getpid())
            runningPath = base + ".running"
            exitTestContext = TestscopeEntryPoint.isExitTestChild
                ? (try? String(contentsOfFile: directory + "/" + String(getppid()) + ".running", encoding: .utf8)) : nil
            let size = Int(testscopeProfileSize())
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(size, 8), alignment: 8)
            defer { buffer.deallocate() }
            guard testscopeWriteProfile(buffer) == 0,
                  FileManager.default.createFile(atPath: base + ".layout.profraw", contents: Data(bytes: buffer, count: size)),
                  let file = fopen(base + ".contexts", "wb") else {
                fputs("testscope-entry-point: warning: cannot write per-test coverage into \(directory)\n", stderr)
                return nil
            }
            self.file = file
        }

        /// Writes the counters that changed since the last flush as one block for `context` ("" = outside
        /// tests; an empty outside block is left out). Chunks of 64 counters are compared with memcmp first:
        /// this file is compiled without optimisation.
        func flush(context: String, keepEmpty: Bool = true) {
            lock.lock(); defer { lock.unlock() }
            var body: [UInt8] = []
            var pairs: UInt32 = 0
            var chunk = 0
            while chunk < count {
                let width = min(64, count - chunk)
                if memcmp(counters + chunk, snapshot + chunk, width * 8) != 0 {
                    for index in chunk..<(chunk + width) where counters[index] != snapshot[index] {
                        let value = counters[index]
                        let delta = value &- snapshot[index]
                        snapshot[index] = value
                        withUnsafeBytes(of: UInt32(index).littleEndian) { body.append(contentsOf: $0) }
                        withUnsafeBytes(of: delta.littleEndian) { body.append(contentsOf: $0) }
                        pairs += 1
                    }
                }
                chunk += width
            }
            if pairs == 0 && (context.isEmpty || !keepEmpty) { return }
            var header: [UInt8] = Array("TSC1".utf8)
            let id = Array(context.utf8)
            withUnsafeBytes(of: UInt32(id.count).littleEndian) { header.append(contentsOf: $0) }
            header += id
            withUnsafeBytes(of: pairs.littleEndian) { header.append(contentsOf: $0) }
            _ = header.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            _ = body.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fflush(file)
        }

        /// One event record of Swift Testing: a test function's start and end, a parameterized test's cases.
        func observe(_ record: UnsafeRawBufferPointer) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(record)) as? [String: Any],
                  let payload = object["payload"] as? [String: Any] else { return }
            if object["kind"] as? String == "test" {
                if payload["kind"] as? String == "function", let id = payload["id"] as? String {
                    lock.lock(); functions.insert(id); if payload["isParameterized"] as? Bool == true { parameterized.insert(id) }; lock.unlock()
                }
                return
            }
            guard let kind = payload["kind"] as? String, let id = payload["testID"] as? String else { return }
            lock.lock()
            let isFunction = functions.contains(id), isParameterized = parameterized.contains(id)
            lock.unlock()
            switch kind {
            case "testStarted" where isFunction:
                flush(context: "")
                running(id)
            case "testCaseStarted" where isParameterized:
                flush(context: id, keepEmpty: false)
                lock.lock(); let number = (cases[id] ?? 0) + 1; lock.unlock()
                running(id + "\t" + String(number))
            case "testCaseEnded" where isParameterized:
                lock.lock(); let number = (cases[id] ?? 0) + 1; cases[id] = number; lock.unlock()
                flush(context: id + "\t" + String(number))
                running(id)
            case "testEnded" where isFunction:
                flush(context: id)
                running("")
            default: break
            }
        }

        /// Names the context running now for an exit test's child (tests run one at a time here).
        private func running(_ context: String) {
            try? Data(context.utf8).write(to: URL(fileURLWithPath: runningPath), options: .atomic)
        }

        /// Swift Testing through the ABI entry point, serially, writing the event stream itself.
        func runSwiftTesting() -> Never {
            var filters: [String] = [], skips: [String] = [], streamPath: String?
            var arguments = CommandLine.arguments.dropFirst().makeIterator()
            while let argument = arguments.next() {
                switch argument {
                case "--filter": if let value = arguments.next() { filters.append(value) }
                case "--skip": if let value = arguments.next() { skips.append(value) }
                case "--event-stream-output-path": streamPath = arguments.next()
                default: break
                }
            }
            typealias Getter = @convention(c) () -> UnsafeRawPointer
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swt_abiv0_getEntryPoint") else {
                print("@ABI_MARKER@")
                exit(@ABI_STATUS@)
            }
            let entryPoint = unsafeBitCast(unsafeBitCast(symbol, to: Getter.self)(), to: TestscopeOrder.ABIEntryPoint.self)
            var options: [String: Any] = ["parallel": false]
            if !filters.isEmpty { options["filter"] = filters }
            if !skips.isEmpty { options["skip"] = skips }
            guard let configuration = try? JSONSerialization.data(withJSONObject: options) else { exit(70) }
            let state = TestscopeOrder.State()
            if let streamPath {
                _ = FileManager.default.createFile(atPath: streamPath, contents: nil)
                state.stream = FileHandle(forWritingAtPath: streamPath)
            }
            state.start()
            Task.detached {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: configuration.count, alignment: 1)
                buffer.copyBytes(from: configuration)
                defer { buffer.deallocate() }
                let passed = (try? await entryPoint(UnsafeRawBufferPointer(buffer), { record in
                    state.record(record)
                    TestscopePerTest.shared?.observe(record)
                })) ?? false
                state.finish(passed)
            }
            while !state.isDone {
                if !RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.005)) { usleep(1000) }
            }
            fflush(stdout)
            exit(state.passed ? 0 : 1)
        }
    }
    """#
}
