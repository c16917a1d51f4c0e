import CProcessControl
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serializes pipe creation and spawning (see `SpawnedProcess.start`); it guards no value, only that
/// no child is spawned while a pipe is made, a child is tracked, or `ProcessTree` reads the children.
let spawnLock = Locked(())

/// A child process started with `posix_spawn`.
///
/// Why our own and not swift-subprocess 1.0.2 (measured here, 300 launches of `/bin/true`, best of 3):
/// launching costs the same (0.58 ms here, 0.88 ms with swift-subprocess; Foundation's `Process` 26 ms
/// because `waitUntilExit` polls the run loop every 50 ms). But swift-subprocess is async-only, and the
/// pipeline runs on blocking threads (`BlockingTask`): its callbacks would run on the cooperative pool,
/// 2 threads wide on 2 cores, the starvation `BlockingTask` exists to avoid. It would also add ~60 s to
/// a clean build on 2 cores and 0.8 MB to the binary. What we need of it is here: process groups
/// (`POSIX_SPAWN_SETPGROUP`), live pipes, the pid at start, stdin fed while the child runs.
struct SpawnedProcess {
    let pid: pid_t

    /// Starts `executable`; the given descriptors become the child's 0, 1 and 2. With `newProcessGroup`
    /// the child leads a process group of its own (its id is the child's pid), so that it and whatever
    /// it starts can be killed together without touching our own group.
    static func start(_ executable: URL, _ arguments: [String], environment: [String: String]?,
                      currentDirectory: URL?, stdin: Int32, stdout: Int32, stderr: Int32,
                      newProcessGroup: Bool = false) throws -> SpawnedProcess {
        // Darwin's spawn types are opaque pointers that `_init` allocates; glibc's are structs.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        var executable = executable
        var arguments = arguments
        if let currentDirectory {
            // posix_spawn has no portable chdir action: let env(1) change directory, then exec.
            arguments = ["-C", currentDirectory.path, executable.path] + arguments
            executable = URL(fileURLWithPath: "/usr/bin/env")
        }
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t? = nil
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling in the child (the parent may ignore SIGPIPE), and no signal blocked
        // (the spawning thread may be one that blocks some), so Ctrl-C reaches `swift build`.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)
        if newProcessGroup {
            // Group id 0: a new group whose id is the child's pid.
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in env { free(p) } }
        var pid: pid_t = 0
        // Under the lock that also guards pipe creation, so no other child inherits a pipe end
        // before it is marked close-on-exec; tracked under it too, so that `ProcessTree` never sees
        // a child of ours that it does not know (and would take for a process a test left behind).
        Interruption.checkpoint()
        let spawned: Int32? = spawnLock.withLock { _ in
            // Interrupted meanwhile: no child now; parked outside the lock, which the interrupt needs.
            guard !Interruption.isInterrupted else { return nil }
            let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, env)
            if status == 0 { _ = testscope_track_child(pid, newProcessGroup ? 1 : 0) }
            return status
        }
        guard let status = spawned else { Interruption.park() }
        guard status == 0 else {
            throw ExecutionError.launchFailed(tool: executable.lastPathComponent, reason: String(cString: strerror(status)))
        }
        return SpawnedProcess(pid: pid)
    }

    /// Waits for the child; returns its exit status, or the signal that ended it.
    func wait() -> (status: Int32, signaled: Bool) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { testscope_untrack_child(pid); return (-1, false) }
        }
        testscope_untrack_child(pid)
        let low = status & 0x7F
        if low == 0 { return ((status >> 8) & 0xFF, false) }
        return (low, true)
    }
}

/// A pipe whose ends are closed on exec, so children only get the ends dup2'ed to them.
struct SpawnPipe {
    let read: Int32
    let write: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        try spawnLock.withLock { _ in
            guard pipe(&fds) == 0 else {
                throw ExecutionError.launchFailed(tool: "pipe", reason: String(cString: strerror(errno)))
            }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        }
        read = fds[0]
        write = fds[1]
    }

    /// Reads everything until end of file; with `until`, also stops at the first 0.1 s of silence
    /// from a second after the child ended (a process the child left behind holds its write end).
    static func readAll(_ fd: Int32, until ended: ExitMark? = nil, chunk: ((Data) -> Void)? = nil) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let ended {
                var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pending, 1, 100)
                if ready < 0 { if errno == EINTR { continue } else { break } }
                if ready == 0 {
                    if let elapsed = ended.elapsed, elapsed >= 1 { break }
                    continue
                }
            }
            let n = buffer.withUnsafeMutableBytes { Glibc_read(fd, $0.baseAddress!, 65536) }
            if n < 0 { if errno == EINTR { continue } else { break } }
            if n == 0 { break }
            let piece = Data(buffer[0..<n])
            if let chunk { chunk(piece) } else { data.append(piece) }
        }
        return data
    }
}

/// Writes all of `bytes` to `fd` (retrying after interruptions); returns errno on failure, else 0.
@discardableResult
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    var offset = 0
    while offset < bytes.count {
        #if canImport(Glibc)
        let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        #else
        let n = Darwin.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        #endif
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += n
    }
    return 0
}

@inline(__always)
func Glibc_read(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, pointer, count)
    #else
    return Darwin.read(fd, pointer, count)
    #endif
}

@inline(__always)
func closeFD(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
