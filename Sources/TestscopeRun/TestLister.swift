import Foundation
import TestscopeExecution
import TestscopeTestResults

/// Lists the tests of a built test binary: `--list-tests` of XCTest and of Swift Testing.
package enum TestLister {
    /// The binary's tests (Swift Testing's once each, as listed). A failed XCTest listing is an error
    /// (`TestResultsError.testListFailed`); a failed Swift Testing listing means no Swift Testing tests.
    /// With `swiftTestingEvents`, Swift Testing's listing also writes its test records there (their
    /// order is Swift Testing's serial order, which `flaky` needs).
    package static func list(binary: URL, environment: [String: String], swiftTestingEvents: URL? = nil) throws -> TestList {
        // An instrumented binary writes a profile at exit: into a folder that is removed, never as
        // `default.profraw` in the current directory.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-list-\(UUID().uuidString)")
        Interruption.creatingTemporary(scratch) { try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: scratch); Interruption.forget(scratch) }
        var environment = environment
        environment["LLVM_PROFILE_FILE"] = scratch.appendingPathComponent("list-%p.profraw").path
        let arguments = ["--testing-library", "swift-testing", "--list-tests"]
            + (swiftTestingEvents.map { ["--event-stream-output-path", $0.path] } ?? [])
        // The two listings are independent processes: run side by side (each is a start of the test binary).
        let swiftTestingListing = Locked<Result<ProcessResult, any Error>?>(nil)
        let environmentCopy = environment
        let swiftTestingTask = BlockingTask {
            let result = Result { try ProcessRunner.run(binary, arguments, environment: environmentCopy) }
            swiftTestingListing.withLock { $0 = result }
        }
        let xcResult = Result { try ProcessRunner.run(binary, ["--list-tests"], environment: environment) }
        swiftTestingTask.wait()
        let xc = try xcResult.get()
        guard xc.succeeded else {
            throw TestResultsError.testListFailed(detail: "\(binary.lastPathComponent) --list-tests exited with \(xc.status)")
        }
        var list = TestList.parse(xc.stdoutText)
        let st = try swiftTestingListing.withLock { $0 }!.get()
        if st.succeeded {
            var seen = Set<String>()
            list.swiftTesting = TestList.parse(st.stdoutText).swiftTesting.filter { seen.insert($0).inserted }
        }
        return list
    }
}
