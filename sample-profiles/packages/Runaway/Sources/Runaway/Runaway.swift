import Foundation

/// Starts `/bin/sleep <seconds>` in the background and returns without waiting for it: a test that
/// calls this leaves a process behind (a stand-in for a server a test forgets to stop).
public func startBackgroundSleep(seconds: Int) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sleep")
    process.arguments = [String(seconds)]
    try process.run()
    return process.processIdentifier
}

public func half(_ x: Int) -> Int {
    x / 2
}
