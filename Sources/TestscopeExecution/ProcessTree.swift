import CProcessControl
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds and ends the descendants of a process (the test binary that `swift test` started), the
/// processes a test left behind, and, on interrupt, everything Testscope started.
package enum ProcessTree {
    /// One process as the process table shows it.
    struct Entry {
        var pid: Int32
        var parent: Int32
        var group: Int32
        /// `Z` for a zombie (ended, not yet reaped).
        var state: Character = "?"
        /// Seconds since boot (Linux); nil elsewhere.
        var startedAfterBoot: Double?
    }

    /// Every process (Linux: from /proc; elsewhere: `ps`).
    static func table() -> [Int32: Entry] {
        var entries: [Int32: Entry] = [:]
        #if os(Linux)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name),
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After the command in parentheses: state, ppid, pgrp, …; starttime is field 22 (index 19 here).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 19, let parent = Int32(fields[1]), let group = Int32(fields[2]) else { continue }
            entries[pid] = Entry(pid: pid, parent: parent, group: group, state: fields[0].first ?? "?",
                                 startedAfterBoot: Double(fields[19]).map { $0 / ticks })
        }
        #else
        if let result = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/ps"), ["-Ao", "pid=,ppid=,pgid=,stat="]) {
            for line in result.stdoutText.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 4, let pid = Int32(parts[0]), let parent = Int32(parts[1]), let group = Int32(parts[2]) {
                    entries[pid] = Entry(pid: pid, parent: parent, group: group, state: parts[3].first ?? "?")
                }
            }
        }
        #endif
        return entries
    }

    /// All descendants of `pid`, children first (each after its parent).
    package static func descendants(of pid: Int32) -> [Int32] {
        descendants(of: pid, in: table())
    }

    static func descendants(of pid: Int32, in table: [Int32: Entry]) -> [Int32] {
        var result: [Int32] = []
        var frontier = [pid]
        while let current = frontier.popLast() {
            for entry in table.values where entry.parent == current {
                result.append(entry.pid)
                frontier.append(entry.pid)
            }
        }
        return result
    }

    /// Sends SIGKILL to the process group `leader` leads and to every descendant of `leader` (also
    /// those that moved to a group of their own). The descendants are found first: once the leader
    /// dies they are re-parented and can no longer be told apart.
    package static func killGroupAndDescendants(leader: Int32) {
        let children = descendants(of: leader)
        kill(-leader, SIGKILL)
        for child in children.reversed() { kill(child, SIGKILL) }
        kill(leader, SIGKILL)
    }

    /// A process a test process left running when it ended (killed since).
    package struct Leftover: Sendable, Equatable {
        package var pid: Int32
        /// Its command line (shortened).
        package var command: String
        /// When it started (to a clock tick, 10 ms), to tell which test started it.
        package var started: ClosedRange<Date>?
    }

    /// After the test process that led `group` was reaped: kills (SIGKILL) and reaps the processes
    /// it left behind, and returns them. With Testscope a child subreaper (`Interruption.install`)
    /// they are Testscope's children now: those it did not spawn itself, unless they are in the
    /// group of another test process still running (`flaky` runs several at once). A left process
    /// may have moved to a group of its own (Foundation's `Process` does that), so the group alone
    /// cannot find it. Without the subreaper (the library in another process) nothing is done: the
    /// orphans went to init, and that process's other children are not Testscope's to kill.
    package static func killLeftovers(ofGroup group: Int32) -> [Leftover] {
        guard Interruption.reapsOrphans else { return [] }
        // Under the spawn lock: a child that was just spawned is tracked before it can be seen here.
        return spawnLock.withLock { _ in
            // The tracked children before the snapshot: under `flaky --jobs 2` another job reaps and
            // untracks its own test process at any moment, and read the other way round that process
            // could be in the snapshot yet no longer tracked, so it looked like something left running
            // (seen: a leftover whose /proc entry was gone by the time it was described).
            let tracked = trackedChildren()
            let entries = table()
            let me = getpid()
            let spawned = Set(tracked.map(\.pid))
            let runningGroups = Set(tracked.filter(\.leadsGroup).map(\.pid))
            var leftovers: [Leftover] = []
            var killed: [Int32] = []
            for entry in entries.values.sorted(by: { $0.pid < $1.pid }) where entry.parent == me && !spawned.contains(entry.pid)
                && (entry.group == group || !runningGroups.contains(entry.group)) {
                let subtree = [entry.pid] + descendants(of: entry.pid, in: entries)
                // Described before the kill (a zombie has no command line left). An empty command line
                // is a process gone or on its way out since the snapshot: killed and reaped with the
                // rest, but not reported as something a test left running.
                for pid in subtree where entries[pid]?.state != "Z" {
                    let command = commandLine(pid)
                    guard !command.isEmpty else { continue }
                    let started = entries[pid]?.startedAfterBoot.map(dateAfterBoot).map { $0...$0.addingTimeInterval(tick) }
                    leftovers.append(Leftover(pid: pid, command: command, started: started))
                }
                for pid in subtree { kill(pid, SIGKILL) }
                killed += subtree
            }
            reap(killed)
            return leftovers
        }
    }

    /// Reaps killed processes that are (or become, as their parents die) Testscope's children, for up to 2 s.
    private static func reap(_ pids: [Int32]) {
        var waiting = pids
        let deadline = Date().addingTimeInterval(2)
        while !waiting.isEmpty, Date() < deadline {
            waiting = waiting.filter { pid in
                var status: Int32 = 0
                let reaped = waitpid(pid, &status, WNOHANG)
                if reaped == pid { return false }
                // Not (yet) our child: done once it is gone from the table.
                #if os(Linux)
                return reaped == 0 || access("/proc/\(pid)", F_OK) == 0
                #else
                return reaped == 0 || kill(pid, 0) == 0
                #endif
            }
            if !waiting.isEmpty { usleep(10_000) }
        }
    }

    /// On interrupt: SIGINT to every child Testscope started (and the groups test processes lead), as
    /// a terminal's Ctrl-C would (`swift build` stops its compilers and ends in about 0.1 s; after
    /// SIGTERM it took over a second), up to 1 s for them to end (not after a second signal), then
    /// SIGKILL to every descendant still there. No child is spawned meanwhile (the spawn lock is held,
    /// and `Interruption` parks spawning threads).
    static func stopAllChildren() {
        spawnLock.withLock { _ in
            let me = getpid()
            let tracked = trackedChildren()
            for child in tracked {
                if child.leadsGroup { kill(-child.pid, SIGINT) }
                kill(child.pid, SIGINT)
            }
            let deadline = Date().addingTimeInterval(1)
            var alive = livingDescendants(of: me, tracked: tracked.map(\.pid))
            while !alive.isEmpty, Date() < deadline, testscope_interrupt_hurried() == 0 {
                usleep(20_000)
                alive = livingDescendants(of: me, tracked: tracked.map(\.pid))
            }
            for child in tracked where child.leadsGroup { kill(-child.pid, SIGKILL) }
            for pid in alive { kill(pid, SIGKILL) }
            #if os(Linux)
            // SIGKILL takes effect when the kernel next runs the process: wait (at most a second)
            // until they have ended, so that none is still running when Testscope's exit status is
            // seen (a loaded CI machine showed a compiler alive just after a second Ctrl-C's exit).
            let killed = Date().addingTimeInterval(1)
            repeat {
                if livingDescendants(of: me, tracked: []).isEmpty { break }
                usleep(2_000)
            } while Date() < killed
            #endif
        }
    }

    /// Linux: every descendant that has not ended. Elsewhere the table comes from `ps`, which cannot be
    /// spawned now (the spawn lock is held): the tracked children that still exist.
    private static func livingDescendants(of me: Int32, tracked: [Int32]) -> [Int32] {
        #if os(Linux)
        let entries = table()
        return descendants(of: me, in: entries).filter { entries[$0].map { $0.state != "Z" } ?? false }
        #else
        return tracked.filter { kill($0, 0) == 0 }
        #endif
    }

    /// The children Testscope spawned and has not reaped yet (recorded by `SpawnedProcess`).
    static func trackedChildren() -> [(pid: Int32, leadsGroup: Bool)] {
        var pids = [Int32](repeating: 0, count: 4096)
        var groups = [Int32](repeating: 0, count: 4096)
        let count = Int(testscope_tracked_children(&pids, &groups, 4096))
        return (0..<count).map { (pids[$0], groups[$0] != 0) }
    }

    private static func commandLine(_ pid: Int32) -> String {
        #if os(Linux)
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        let text = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
        #else
        return "pid \(pid)"
        #endif
    }

    /// The resolution of /proc's start times.
    private static var tick: Double {
        #if os(Linux)
        return 1 / Double(sysconf(Int32(_SC_CLK_TCK)))
        #else
        return 1
        #endif
    }

    /// A moment given in seconds since boot (Linux's CLOCK_BOOTTIME, the clock of /proc's start times).
    private static func dateAfterBoot(_ seconds: Double) -> Date {
        #if os(Linux)
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let sinceBoot = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        return Date().addingTimeInterval(seconds - sinceBoot)
        #else
        return Date()
        #endif
    }
}
