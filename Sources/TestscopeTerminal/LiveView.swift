import Foundation
import TestscopeReports
import TestscopeExecution
import TestscopeRun
import TestscopeTestResults

/// What `run` and `flaky` show while they work, on stderr. On a terminal: the build's errors, its first
/// warnings (`BuildWarnings`: the others counted by message once the build is over) and each failure as
/// it happens, under one status line redrawn in place at most 10 times a second. Not
/// on a terminal (pipes, CI, `TERM=dumb`): the same lines plain, and a heartbeat every 30 s, with no
/// carriage return and no colour. `--quiet`: errors and failures only. `--verbose`: the raw lines
/// (the caller echoes them), nothing from here but the notes.
package final class LiveView: Console {
    package enum Mode: Sendable, Equatable { case interactive, plain, quiet, verbose }

    private struct State {
        var status = LiveStatus(phase: .building(done: 0, total: 0, step: ""))
        var started = Date()
        var testsStarted: Date?
        var drawn = false
        var dirty = false
        var lastDraw = Date.distantPast
        var lastHeartbeat = Date()
        var afterDiagnostic = false
        var diagnosticIsError = false
        /// The diagnostic being read is printed (its source lines and notes follow it or not).
        var showingDiagnostic = false
        var seenDiagnostics: Set<String> = []
        var warnings = BuildWarnings()
        var warningsSummarized = false
        /// The running tests, the last started last, with when each started.
        var running: [(id: String, since: Date)] = []
        /// Selected tests with no result yet: the denominator is the results so far plus these.
        var pending: Set<String> = []
        /// The earlier run's time of each selected test (`work`) and of those with a result (`workDone`).
        var work: [String: Double] = [:]
        var workTotal = 0.0
        var workDone = 0.0
        var stopped = false
    }

    package let mode: Mode
    private let base: Terminal
    private let paths: PathDisplay
    private let heartbeat: Double
    /// Where every line of the build is (named in the summary of the warnings not shown).
    private let buildLog: String?
    private let state = Locked(State())
    private let stop = DispatchSemaphore(value: 0)

    /// `heartbeat`: seconds between the plain mode's progress lines; `buildLog`: the file that keeps the
    /// build's output, as the user is to read its name.
    package init(terminal: Terminal, packageRoot: String, heartbeat: Double = 30, buildLog: String? = nil) {
        self.base = terminal
        self.paths = PathDisplay(root: packageRoot)
        self.heartbeat = heartbeat
        self.buildLog = buildLog
        if terminal.quiet { mode = .quiet } else if terminal.verbose { mode = .verbose } else if terminal.showProgress { mode = .interactive } else { mode = .plain }
    }

    /// The mode for a terminal (`interactive` when it can redraw a line).
    package static func mode(for terminal: Terminal) -> Mode {
        LiveView(terminal: terminal, packageRoot: "/").mode
    }

    /// Starts the clock that redraws the status line (and writes the heartbeat).
    package func start() {
        guard mode == .interactive || mode == .plain else { return }
        let interval = mode == .interactive ? 0.1 : 1
        let thread = Thread { [self] in
            while stop.wait(timeout: .now() + interval) == .timedOut { tick() }
        }
        thread.start()
    }

    /// Stops the clock and clears the status line (the final screen follows).
    package func finish() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard wasRunning else { return }
        if mode == .interactive || mode == .plain { stop.signal() }
        state.withLock { state in
            summarizeWarnings(&state)
            if state.drawn { base.console.diagnostics("\r\u{1B}[K") }
            state.drawn = false
        }
    }

    // MARK: Input

    /// One line of the build's output.
    package func buildLine(_ line: String) {
        guard mode != .verbose else { return }
        state.withLock { state in
            switch BuildLine.classify(line, afterDiagnostic: state.afterDiagnostic) {
            case let .progress(done, total, step):
                state.afterDiagnostic = false
                state.status.phase = .building(done: done, total: total, step: step)
                state.dirty = true
            case let .diagnostic(text, isError):
                let context = state.afterDiagnostic && !text.contains(": error:") && !text.contains(": warning:") && !text.hasPrefix("error:") && !text.hasPrefix("warning:")
                state.afterDiagnostic = true
                if !context {
                    state.diagnosticIsError = isError
                    // SwiftPM repeats a diagnostic for each build step that sees the file: once is enough.
                    // Errors are shown in full; warnings the first few (`--quiet`: none), then counted.
                    let first = state.seenDiagnostics.insert(text).inserted
                    state.showingDiagnostic = first && (isError || (state.warnings.add(text, paths: paths) && mode != .quiet))
                    if first, !isError { state.status.warnings = state.warnings.count; state.dirty = true }
                }
                guard state.showingDiagnostic else { return }
                emit(&state, [text])
            case .noise:
                state.afterDiagnostic = false
            }
        }
    }

    /// The tests about to run (ids as `swift test list` names them), and the earlier run's durations by id.
    /// Results are counted, a parameterized test's cases each as one (as the final screen counts them).
    package func testsSelected(_ ids: [String], earlier: [String: Double] = [:]) {
        state.withLock { state in
            summarizeWarnings(&state)
            state.status = LiveStatus(phase: .testing)
            state.pending = Set(ids)
            state.status.total = state.pending.count
            state.testsStarted = Date()
            // An estimate needs the earlier times of most of the tests; a new test is taken as a typical one.
            let known = state.pending.compactMap { earlier[$0] }.sorted()
            if !known.isEmpty, known.count * 2 >= state.pending.count {
                let median = known[known.count / 2]
                state.work = Dictionary(uniqueKeysWithValues: state.pending.map { ($0, earlier[$0] ?? median) })
                state.workTotal = state.work.values.reduce(0, +)
            }
            state.dirty = true
        }
    }

    /// A test started or finished; a failure is printed at once.
    package func test(_ event: LiveTestEvent) {
        state.withLock { state in
            switch event {
            case let .started(id):
                state.running.removeAll { $0.id == id }
                state.running.append((id, Date()))
            case let .finished(result):
                state.running.removeAll { $0.id == result.id }
                state.status.done += 1
                if state.pending.remove(result.id) != nil { state.workDone += state.work[result.id] ?? 0 }
                state.status.total = state.status.done + state.pending.count
                switch result.outcome {
                case .passed, .expectedFailure: state.status.passed += 1
                case .skipped: state.status.skipped += 1
                default: state.status.failed += 1
                }
                if result.outcome.isFailure, mode != .verbose { emit(&state, failureLines(result)) }
            }
            state.dirty = true
        }
    }

    /// A custom status (flaky's runs).
    package func status(_ text: String) {
        state.withLock { state in
            summarizeWarnings(&state)
            state.status.phase = .custom(text)
            state.dirty = true
        }
    }

    /// Lines printed above the status line on stderr (notes, warnings).
    package func print(_ lines: [String]) {
        state.withLock { state in emit(&state, lines) }
    }

    /// Result lines printed above the status line on stdout (flaky's seed and per-run lines).
    package func printResults(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        state.withLock { state in
            summarizeWarnings(&state)
            if state.drawn { base.console.diagnostics("\r\u{1B}[K") }
            state.drawn = false
            base.console.output(lines.joined(separator: "\n") + "\n")
            if mode == .interactive, !state.stopped { base.console.diagnostics(statusText(&state)) }
        }
    }

    // MARK: Console: notes and warnings printed while the view is up go above the status line.

    package func output(_ text: String) { diagnostics(text) }

    package func diagnostics(_ text: String) {
        let lines = text.hasSuffix("\n") ? String(text.dropLast()) : text
        state.withLock { state in emit(&state, [lines]) }
    }

    /// `terminal` with its words going through this view.
    package var terminal: Terminal {
        var through = base
        through.console = self
        return through
    }

    // MARK: Output

    /// `✗ Module.Class/test` and its `file:line: message` lines.
    func failureLines(_ result: TestCaseResult) -> [String] {
        let word: String
        switch result.outcome {
        case .crashed: word = "CRASHED"
        case .timedOut: word = "TIMED OUT"
        default: word = "FAILED"
        }
        let mark = mode == .interactive ? base.styled("✗ " + word, .red) : word
        let name = result.id + (result.arguments.map { " [\($0)]" } ?? "")
        let details = TestText.failureLines(result, paths: paths).map { "    " + TestText.oneLine($0, limit: 2000) }
        return ["\(mark) \(name)" + (result.duration.map { " (\(TestText.seconds($0)))" } ?? "")] + details
    }

    /// Prints lines above the status line, then draws it again.
    private func emit(_ state: inout State, _ lines: [String]) {
        guard !lines.isEmpty else { return }
        var text = state.drawn ? "\r\u{1B}[K" : ""
        // On a terminal (`--quiet` too), long lines (a failure's message, a warning) are wrapped with an
        // indent rather than left to the terminal, which would start them at column 0.
        let fitted = base.columns.map { width in lines.flatMap { line in
            line.split(separator: "\n", omittingEmptySubsequences: false).flatMap { ScreenText.wrap(String($0), width: width) }
        } } ?? lines
        text += fitted.joined(separator: "\n") + "\n"
        state.drawn = false
        if mode == .interactive, !state.stopped { text += statusText(&state) }
        base.console.diagnostics(text)
    }

    private func statusText(_ state: inout State) -> String {
        refresh(&state)
        state.drawn = true
        state.dirty = false
        state.lastDraw = Date()
        return base.styled(state.status.line(width: base.width), .dim)
    }

    /// Once the build is over: the warnings not shown in full, counted by message.
    private func summarizeWarnings(_ state: inout State) {
        guard !state.warningsSummarized else { return }
        state.warningsSummarized = true
        guard mode != .quiet else { return }
        emit(&state, state.warnings.summary(log: buildLog, width: base.columns))
    }

    private func refresh(_ state: inout State) {
        let now = Date()
        state.status.elapsed = now.timeIntervalSince(state.started)
        if state.status.phase == .testing {
            let testing = state.testsStarted.map { now.timeIntervalSince($0) } ?? 0
            // The longest-running test, once it runs long enough to be the reason nothing moves; else the last started.
            let longest = state.running.min { $0.since < $1.since }
            let long = longest.map { now.timeIntervalSince($0.since) }.flatMap { $0 >= LiveStatus.longTest ? $0 : nil }
            let shown = long != nil ? longest : state.running.last
            state.status.running = shown?.id
            state.status.runningFor = long
            state.status.alsoRunning = max(0, state.running.count - 1)
            let running = state.running.map { (ran: now.timeIntervalSince($0.since), earlier: state.work[$0.id] ?? 0) }
            state.status.remaining = state.work.isEmpty ? nil
                : LiveStatus.estimate(elapsed: testing, workDone: state.workDone, work: state.workTotal, running: running)
        }
    }

    private func tick() {
        state.withLock { state in
            guard !state.stopped else { return }
            let now = Date()
            switch mode {
            case .interactive:
                // At most 10 redraws a second (the clock's interval); the elapsed time moves once a second.
                let second = Int(now.timeIntervalSince(state.started)) != Int(state.lastDraw.timeIntervalSince(state.started))
                guard state.dirty || second else { return }
                base.console.diagnostics("\r\u{1B}[K" + statusText(&state))
            case .plain:
                guard now.timeIntervalSince(state.lastHeartbeat) >= heartbeat else { return }
                state.lastHeartbeat = now
                refresh(&state)
                base.console.diagnostics(state.status.heartbeat + "\n")
            case .quiet, .verbose:
                return
            }
        }
    }
}
