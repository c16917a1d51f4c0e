import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The outcome of a finished child process.
package struct ProcessResult: Sendable {
    package var status: Int32
    /// True when the process was ended by a signal (then `status` is the signal number).
    package var terminatedBySignal: Bool
    package var stdout: Data
    package var stderr: Data

    package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    package var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    package var succeeded: Bool { status == 0 && !terminatedBySignal }
}

/// Runs child processes: captured, streamed to our own output, or with stdout sent to a file.
package enum ProcessRunner {
    /// Writing to a child that has exited must be an error, not a fatal SIGPIPE.
    private static var ignoreSIGPIPE: Void { StandardStreams.ignoreSIGPIPE }

    /// Runs `executable` and captures both output streams (stdout into `stdoutFile` when given).
    package static func run(
        _ executable: URL, _ arguments: [String], input: Data? = nil,
        currentDirectory: URL? = nil, environment: [String: String]? = nil,
        stdoutFile: URL? = nil
    ) throws -> ProcessResult {
        _ = ignoreSIGPIPE
        let err = try SpawnPipe()
        let out = stdoutFile == nil ? try SpawnPipe() : nil
        var fileFD: Int32 = -1
        if let stdoutFile {
            // A symbolic link there is replaced, never written through (see `OutputFolder`).
            if OutputFolder.linkDestination(stdoutFile) != nil { unlink(stdoutFile.path) }
            fileFD = open(stdoutFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fileFD >= 0 else {
                closeFD(err.read); closeFD(err.write)
                throw ExecutionError.cannotWrite(path: stdoutFile.path, reason: String(cString: strerror(errno)))
            }
        }
        let inPipe = input == nil ? nil : try SpawnPipe()
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { closeFD(null) }
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess.start(executable, arguments, environment: environment, currentDirectory: currentDirectory,
                                             stdin: inPipe?.read ?? null, stdout: out?.write ?? fileFD, stderr: err.write)
        } catch {
            for fd in [err.read, err.write, out?.read ?? -1, out?.write ?? -1, fileFD, inPipe?.read ?? -1, inPipe?.write ?? -1] where fd >= 0 { closeFD(fd) }
            throw error
        }
        closeFD(err.write)
        if let out { closeFD(out.write) }
        if fileFD >= 0 { closeFD(fileFD) }
        if let inPipe { closeFD(inPipe.read) }

        let box = OutputBox()
        var readers: [BlockingTask] = []
        if let out {
            readers.append(BlockingTask { box.setOut(SpawnPipe.readAll(out.read)); closeFD(out.read) })
        }
        readers.append(BlockingTask { box.setErr(SpawnPipe.readAll(err.read)); closeFD(err.read) })
        if let input, let inPipe {
            _ = input.withUnsafeBytes { writeAll(inPipe.write, $0) }
            closeFD(inPipe.write)
        }
        for reader in readers { reader.wait() }
        let ended = child.wait()
        return ProcessResult(status: ended.status, terminatedBySignal: ended.signaled, stdout: box.out, stderr: box.err)
    }

    /// Runs `executable` with output streamed live to our stdout/stderr (when `echo`), handed to
    /// `onLine` line by line, and with stderr captured. `mergeStderr` sends the child's stderr into
    /// its stdout pipe, keeping the order of lines written to both (as `swift test` shows them).
    /// `newProcessGroup` starts the child as the leader of a process group of its own (`onStart`'s pid
    /// is then also the group id), so it can be killed with everything it started. `afterExit` runs
    /// once the child is reaped, before the rest of its output is read (the supervisor kills what a
    /// test left behind there). The output is read until end of file, or, from a second after the child
    /// ended, until the pipes fall silent: a process it left running may hold them open forever.
    package static func stream(
        _ executable: URL, _ arguments: [String], currentDirectory: URL? = nil,
        environment: [String: String]? = nil,
        echo: Bool = true, mergeStderr: Bool = false, newProcessGroup: Bool = false,
        onStart: ((Int32) -> Void)? = nil, afterExit: ((Int32) -> Void)? = nil, onLine: (@Sendable (String) -> Void)? = nil
    ) throws -> ProcessResult {
        _ = ignoreSIGPIPE
        let out = try SpawnPipe()
        let err = try SpawnPipe()
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { closeFD(null) }
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess.start(executable, arguments, environment: environment, currentDirectory: currentDirectory,
                                             stdin: null, stdout: out.write, stderr: mergeStderr ? out.write : err.write,
                                             newProcessGroup: newProcessGroup)
        } catch {
            for fd in [out.read, out.write, err.read, err.write] { closeFD(fd) }
            throw error
        }
        closeFD(out.write)
        closeFD(err.write)
        onStart?(child.pid)
        // The two pipes' chunks reach the terminal one at a time (a line is not cut by the other's).
        let echoing = Locked(())
        let capturedErr = OutputBox()
        let ended = ExitMark()

        func pump(_ fd: Int32, to target: Int32, captureErr: Bool) -> BlockingTask {
            BlockingTask {
                var pending = Data()
                _ = SpawnPipe.readAll(fd, until: ended) { chunk in
                    if echo { echoing.withLock { _ in StandardStreams.write(target, chunk) } }
                    if captureErr { capturedErr.appendErr(chunk) }
                    if let onLine {
                        pending.append(chunk)
                        while let newline = pending.firstIndex(of: 0x0A) {
                            onLine(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                            pending.removeSubrange(pending.startIndex...newline)
                        }
                    }
                }
                closeFD(fd)
                if let onLine, !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
            }
        }
        let outWork = pump(out.read, to: STDOUT_FILENO, captureErr: false)
        let errWork = pump(err.read, to: STDERR_FILENO, captureErr: true)
        let exit = child.wait()
        afterExit?(child.pid)
        ended.mark()
        outWork.wait()
        errWork.wait()
        return ProcessResult(status: exit.status, terminatedBySignal: exit.signaled, stdout: Data(), stderr: capturedErr.err)
    }
}

/// Work that blocks (reading a pipe, waiting for a child) on a thread of its own: Dispatch's global
/// pool is only as wide as the machine, and blocked tasks there starve the rest (on 2 cores a
/// demangler's output reader waited behind other work for most of a second).
package final class BlockingTask: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// `stackSize`: 1 MB unless the work needs more (rendering templates recurses per nesting level:
    /// give it the 8 MB of the main thread).
    package init(stackSize: Int = 1 << 20, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread { [done] in
            work()
            done.signal()
        }
        thread.stackSize = stackSize
        thread.start()
    }

    /// Waits until the work has finished (again and again: the signal is passed on).
    package func wait() {
        done.wait()
        done.signal()
    }
}

/// When a child ended, for the readers of its pipes.
final class ExitMark: Sendable {
    private let at = Locked<Date?>(nil)
    func mark() { at.withLock { $0 = Date() } }
    /// Seconds since the child ended (nil while it runs).
    var elapsed: Double? { at.withLock { $0 }.map { Date().timeIntervalSince($0) } }
}

/// Collects output from reader threads.
final class OutputBox: Sendable {
    private let state = Locked((out: Data(), err: Data()))
    var out: Data { state.withLock { $0.out } }
    var err: Data { state.withLock { $0.err } }
    func setOut(_ data: Data) { state.withLock { $0.out = data } }
    func setErr(_ data: Data) { state.withLock { $0.err = data } }
    func appendErr(_ data: Data) { state.withLock { $0.err.append(data) } }
}

