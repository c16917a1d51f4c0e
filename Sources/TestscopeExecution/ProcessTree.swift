import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds and ends the descendants of a process (the test binary that `swift test` started).
public enum ProcessTree {
    /// All descendants of `pid`, children first (Linux: from /proc; elsewhere: `pgrep -P`).
    public static func descendants(of pid: Int32) -> [Int32] {
        var parentOf: [Int32: Int32] = [:]
        #if os(Linux)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parentOf[child] = parent }
        }
        #else
        if let result = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/ps"), ["-Ao", "pid=,ppid="]) {
            for line in result.stdoutText.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 2, let c = Int32(parts[0]), let p = Int32(parts[1]) { parentOf[c] = p }
            }
        }
        #endif
        var result: [Int32] = []
        var frontier = [pid]
        while let current = frontier.popLast() {
            for (child, parent) in parentOf where parent == current {
                result.append(child)
                frontier.append(child)
            }
        }
        return result
    }

    /// Sends SIGKILL to the process group `leader` leads and to every descendant of `leader` (also
    /// those that moved to a group of their own). The descendants are found first: once the leader
    /// dies they are re-parented and can no longer be told apart.
    public static func killGroupAndDescendants(leader: Int32) {
        let children = descendants(of: leader)
        kill(-leader, SIGKILL)
        for child in children.reversed() { kill(child, SIGKILL) }
        kill(leader, SIGKILL)
    }
}
