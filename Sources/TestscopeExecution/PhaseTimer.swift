import CProcessControl
import Foundation

/// Prints how long each phase took on stderr when `TESTSCOPE_TIMING=1` (for the benchmark).
package enum PhaseTimer {
    #if canImport(Glibc)
    private static let selfUsage = RUSAGE_SELF.rawValue
    #else
    private static let selfUsage = RUSAGE_SELF
    #endif
    static let enabled = ProcessInfo.processInfo.environment["TESTSCOPE_TIMING"] == "1"
    static let last = Locked((wall: Date(), cpu: processCPUSeconds()))

    /// User + system CPU seconds of the whole process (every thread): beside the wall time it
    /// tells how well a phase used the cores.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        guard getrusage(Self.selfUsage, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// `VmRSS` and `VmHWM` from /proc (Linux), for the benchmark's memory breakdown.
    static func residentMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return "?" }
        return status.split(separator: "\n").filter { $0.hasPrefix("VmRSS") || $0.hasPrefix("VmHWM") }
            .map { $0.replacingOccurrences(of: "\t", with: "").replacingOccurrences(of: "  ", with: " ") }.joined(separator: ", ")
            + heapUse()
    }

    /// glibc's view of the heap: what is in use, what is free in its arenas (resident or not), what
    /// is mapped block by block; it tells live data from what the allocator keeps.
    static func heapUse() -> String {
        var inUse = 0, free = 0, mapped = 0
        guard testscope_heap_stats(&inUse, &free, &mapped) == 0 else { return "" }
        return String(format: ", heap in use %.1f MB, free %.1f MB, mapped %.1f MB",
                      Double(inUse) / 1e6, Double(free) / 1e6, Double(mapped) / 1e6)
    }

    package static func mark(_ phase: String) {
        guard enabled else { return }
        last.withLock { last in
            let now = (wall: Date(), cpu: processCPUSeconds())
            StandardStreams.write(STDERR_FILENO, String(format: "testscope: timing: %-24@ %.3f s  cpu %.3f s  rss %@\n", phase as NSString,
                                                        now.wall.timeIntervalSince(last.wall), now.cpu - last.cpu,
                                                        residentMemory() as NSString))
            last = now
        }
    }
}
