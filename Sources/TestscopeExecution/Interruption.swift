import CProcessControl
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP stop a command cleanly: every process it started and their
/// descendants are stopped, its temporary files are removed, the terminal is restored, and it exits
/// with status 130. A second signal kills the children at once (the cleanup stops waiting for them);
/// a third exits at once.
///
/// Once interrupted, a thread that would start a process, create a file or print parks in
/// `checkpoint()` until the process exits, so nothing new starts while the cleanup runs.
package enum Interruption {
    /// The exit status of an interrupted command (128 + SIGINT, what a shell shows for a Ctrl-C).
    package static let exitStatus: Int32 = 130

    private struct State {
        var installed = false
        var subreaper = false
        var interrupted = false
        /// Paths removed on interrupt, with how often each was registered.
        var temporaries: [String: Int] = [:]
    }

    private static let state = Locked(State())

    /// Installs the handler (the command line does, once; the library's in-process tests do not) and
    /// makes Testscope the reaper of its descendants' orphans, so that a process a test leaves behind
    /// becomes Testscope's child, where `ProcessTree.killLeftovers` finds it.
    package static func install() {
        guard state.withLock({ state in defer { state.installed = true }; return !state.installed }) else { return }
        let subreaper = testscope_set_child_subreaper() == 0
        state.withLock { $0.subreaper = subreaper }
        testscope_save_terminal()
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let reader = fds[0]
        // The handler only writes the signal's number here; the cleanup runs on this thread.
        let watcher = Thread {
            var byte: UInt8 = 0
            while Glibc_read(reader, &byte, 1) != 1 {}
            stop(signal: Int32(byte))
        }
        watcher.stackSize = 1 << 20
        watcher.start()
        _ = testscope_install_interrupt_handler(fds[1], exitStatus)
    }

    /// True when orphaned descendants come to Testscope (the command line on Linux). Only then are
    /// children Testscope did not spawn taken for what a test left behind: a process that embeds the
    /// library may have children of its own.
    package static var reapsOrphans: Bool { state.withLock { $0.subreaper } }

    /// True once a signal arrived: from the handler's own flag, so that a thread that sees a child
    /// die of the same Ctrl-C parks before it reports that as a failure, even when the cleanup
    /// thread has not run yet (on a loaded machine the main thread printed the child's "crashed with
    /// signal 2" and exited 70 first).
    package static var isInterrupted: Bool { testscope_interrupt_received() != 0 || state.withLock { $0.interrupted } }

    /// Parks the calling thread for good once interrupted (the watcher is about to exit the process).
    package static func checkpoint() {
        guard isInterrupted else { return }
        park()
    }

    static func park() -> Never {
        while true { sleep(3600) }
    }

    /// Runs `create` (which makes `url`) and registers `url` for removal on interrupt, as one step:
    /// either the file exists and is registered before the cleanup looks, or it is never made.
    package static func creatingTemporary<Result>(_ url: URL, _ create: () throws -> Result) rethrows -> Result {
        let result: Result? = try state.withLock { state in
            guard !state.interrupted else { return nil }
            let made = try create()
            state.temporaries[url.path, default: 0] += 1
            return made
        }
        guard let result else { park() }
        return result
    }

    /// Runs `body` with the cleanup held off: a signal that arrives meanwhile is handled once it has
    /// returned, so files it renames are replaced all or none (`run` putting its artifacts and record
    /// in place). `body` renames and removes files only: it must not call back into `Interruption`
    /// (writers do). Once interrupted, it does not run: the thread parks.
    package static func withCleanupHeldOff(_ body: () -> Void) {
        let ran = state.withLock { state -> Bool in
            guard !state.interrupted else { return false }
            body()
            return true
        }
        if !ran { park() }
    }

    /// Registers `url` (a file or folder a child process writes) for removal on interrupt.
    package static func removeOnInterrupt(_ url: URL) {
        creatingTemporary(url) {}
    }

    /// `url` is complete, renamed or removed: an interrupt leaves it alone.
    package static func forget(_ url: URL) {
        state.withLock { state in
            guard let count = state.temporaries[url.path] else { return }
            state.temporaries[url.path] = count > 1 ? count - 1 : nil
        }
    }

    /// The watcher's work after the first signal: stop the children, remove the temporaries, restore
    /// the terminal, say what happened, exit.
    static func stop(signal: Int32) -> Never {
        let temporaries = state.withLock { state in
            state.interrupted = true
            return Array(state.temporaries.keys)
        }
        ProcessTree.stopAllChildren()
        for path in temporaries { try? FileManager.default.removeItem(atPath: path) }
        testscope_restore_terminal()
        let names = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"]
        let line = (isatty(STDERR_FILENO) == 1 ? "\n" : "") + "testscope: error: interrupted by \(names[signal] ?? "signal \(signal)"); "
            + "stopped the processes it started and removed its temporary files\n"
        fflush(nil)
        _ = Array(line.utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) }
        _exit(exitStatus)
    }
}
