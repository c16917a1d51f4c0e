import Foundation

/// Prints how long each phase took on stderr when `TESTSCOPE_TIMING=1` (for the benchmark).
public enum PhaseTimer {
    static let enabled = ProcessInfo.processInfo.environment["TESTSCOPE_TIMING"] == "1"
    static let last = Locked(Date())

    /// `VmRSS` and `VmHWM` from /proc (Linux), for the benchmark's memory breakdown.
    static func residentMemory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return "?" }
        return status.split(separator: "\n").filter { $0.hasPrefix("VmRSS") || $0.hasPrefix("VmHWM") }
            .map { $0.replacingOccurrences(of: "\t", with: "").replacingOccurrences(of: "  ", with: " ") }.joined(separator: ", ")
    }

    public static func mark(_ phase: String) {
        guard enabled else { return }
        last.withLock { last in
            let now = Date()
            FileHandle.standardError.write(Data(String(format: "testscope: timing: %-24@ %.3f s  rss %@\n", phase as NSString,
                                                       now.timeIntervalSince(last), residentMemory() as NSString).utf8))
            last = now
        }
    }
}
