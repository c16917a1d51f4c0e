import Foundation

/// Prints how long each phase took on stderr when `TESTSCOPE_TIMING=1` (for the benchmark).
public enum PhaseTimer {
    static let enabled = ProcessInfo.processInfo.environment["TESTSCOPE_TIMING"] == "1"
    nonisolated(unsafe) static var last = Date()
    static let lock = NSLock()

    public static func mark(_ phase: String) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        FileHandle.standardError.write(Data(String(format: "testscope: timing: %-24@ %.3f s\n", phase as NSString, now.timeIntervalSince(last)).utf8))
        last = now
    }
}
