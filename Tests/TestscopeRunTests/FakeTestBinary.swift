import Foundation
import XCTest

/// A shell script that behaves like a test binary: it prints XCTest console lines for the tests it is
/// given (comma-joined `Module.Class/method` specifiers, as XCTest takes them; all without arguments),
/// and each test's name says what it does, so the supervisor can be tested without building a package.
enum FakeTestBinary {
    static let all = ["testA", "testCrash", "testB", "testDieAfter", "testC", "testHang"]

    /// `testCrash` crashes (SIGSEGV) mid-test; `testDieAfter` passes and then the process is killed
    /// before the next test starts; `testHang` leaves two processes whose pids go to `$FAKE_PIDS` (an
    /// orphan still in its process group, which only the group kill reaches, and a child in a session of
    /// its own, which only the descendants kill reaches), then hangs. `--swift-testing-parallel-crash` instead
    /// writes an event stream with two Swift Testing tests in flight (and, as line 3, a line that is not JSON) and crashes.
    static let script = #"""
    #!/bin/sh
    if [ "$1" = "--swift-testing-parallel-crash" ]; then
      for t in "a()" "b()"; do
        echo "{\"kind\":\"test\",\"payload\":{\"id\":\"M.S/$t/F.swift:1:1\",\"kind\":\"function\",\"name\":\"$t\"}}" >> "$2"
      done
      echo "{not json" >> "$2"
      for t in "a()" "b()"; do
        echo "{\"kind\":\"event\",\"payload\":{\"kind\":\"testStarted\",\"testID\":\"M.S/$t/F.swift:1:1\",\"instant\":{\"absolute\":1,\"since1970\":1}}}" >> "$2"
      done
      kill -SEGV $$
    fi
    tests="$1"
    [ -z "$tests" ] && tests="FakeTests.Fake/testA,FakeTests.Fake/testCrash,FakeTests.Fake/testB"
    for spec in $(echo "$tests" | tr ',' ' '); do
      name="${spec#*/}"
      echo "Test Case 'Fake.$name' started at 2024-01-01 00:00:00.000"
      case "$name" in
        testCrash) echo "Fake/Fake.swift:1: Fatal error: boom"; kill -SEGV $$ ;;
        testHang)
          sh -c 'sleep 300 & echo $! >> "$FAKE_PIDS"'
          setsid sleep 300 & echo $! >> "$FAKE_PIDS"
          sleep 300 ;;
      esac
      echo "Test Case 'Fake.$name' passed (0.001 seconds)"
      [ "$name" = testDieAfter ] && kill -KILL $$
    done
    exit 0
    """#

    /// Writes the script into `folder` and returns its path.
    static func install(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("FakePackageTests.xctest")
        try script.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }.joined(separator: "\n")
            .write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }

    static func id(_ name: String) -> String { "FakeTests.Fake/\(name)" }

    /// True when `pid` is gone or a zombie waiting to be reaped (it no longer runs).
    static func isGone(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        #if os(Linux)
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
        #else
        // No /proc: ps(1) tells the state.
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/bin/ps")
        ps.arguments = ["-o", "stat=", "-p", "\(pid)"]
        let out = Pipe()
        ps.standardOutput = out
        guard (try? ps.run()) != nil else { return true }
        let state = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ps.waitUntilExit()
        return state.trimmingCharacters(in: .whitespaces).first.map { $0 == "Z" } ?? true
        #endif
    }
}
