import Foundation
import TestscopeExecution
import TestscopeTestResults

/// Lists the tests of a built test binary: `--list-tests` of XCTest, then of Swift Testing.
public enum TestLister {
    /// The binary's tests (Swift Testing's once each, as listed). A failed XCTest listing is an error
    /// (`TestResultsError.testListFailed`); a failed Swift Testing listing means no Swift Testing tests.
    /// With `swiftTestingEvents`, Swift Testing's listing also writes its test records there (their
    /// order is Swift Testing's serial order, which `flaky` needs).
    public static func list(binary: URL, environment: [String: String], swiftTestingEvents: URL? = nil) throws -> TestList {
        // An instrumented binary writes a profile at exit: into a folder that is removed, never as
        // `default.profraw` in the current directory.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-list-\(UUID().uuidString)")
        Interruption.creatingTemporary(scratch) { try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: scratch); Interruption.forget(scratch) }
        var environment = environment
        environment["LLVM_PROFILE_FILE"] = scratch.appendingPathComponent("list-%p.profraw").path
        let xc = try ProcessRunner.run(binary, ["--list-tests"], environment: environment)
        guard xc.succeeded else {
            throw TestResultsError.testListFailed(detail: "\(binary.lastPathComponent) --list-tests exited with \(xc.status)")
        }
        var list = TestList.parse(xc.stdoutText)
        var arguments = ["--testing-library", "swift-testing", "--list-tests"]
        if let swiftTestingEvents { arguments += ["--event-stream-output-path", swiftTestingEvents.path] }
        let st = try ProcessRunner.run(binary, arguments, environment: environment)
        if st.succeeded {
            var seen = Set<String>()
            list.swiftTesting = TestList.parse(st.stdoutText).swiftTesting.filter { seen.insert($0).inserted }
        }
        return list
    }
}
