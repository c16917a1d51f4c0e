import Foundation
import XCTest

/// A standard output whose reader leaves (`testscope … | head -1`) or is gone before the first byte
/// (`… | true`): the command goes on to its end and its own status, writes its reports, and says
/// nothing more on stderr than it would have said anyway. Earlier the native engine died of SIGPIPE
/// (141), the llvm-cov engine of a trap in Foundation's `FileHandle` (132), `--help` of SIGPIPE.
final class ClosedOutputTests: XCTestCase {
    static let shapes = TestscopeProcess.samples.appendingPathComponent("packages/Shapes")
    var output: URL!

    override func setUpWithError() throws { output = try TestscopeProcess.temporaryDirectory("closed-output") }
    override func tearDown() {
        try? FileManager.default.removeItem(at: output)
        super.tearDown()
    }

    enum Reader { case headOne, goneFirst }

    struct Ended {
        var status: Int32
        var signaled: Bool
        var stderr: String
    }

    /// Runs testscope with its stdout into `head -1`, or into a pipe whose read end is already closed.
    func testscope(_ arguments: [String], reader: Reader) throws -> Ended {
        let process = Process()
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        var fds: [Int32] = [0, 0]
        switch reader {
        case .headOne:
            // The shell reports testscope's own status (128 + the signal when one ended it).
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", #""$@" | head -1 > /dev/null; exit "${PIPESTATUS[0]}""#, "bash", TestscopeProcess.executable.path] + arguments
        case .goneFirst:
            XCTAssertEqual(pipe(&fds), 0)
            close(fds[0])
            process.executableURL = TestscopeProcess.executable
            process.arguments = arguments
            process.standardOutput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
        }
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let signaled = process.terminationReason == .uncaughtSignal || (reader == .headOne && process.terminationStatus > 128)
        return Ended(status: process.terminationStatus, signaled: signaled, stderr: stderr)
    }

    /// `run` (its final screen on stdout), then `report` with each engine: status 0, the reports
    /// written, stderr as with a reader that stays.
    func testRunAndReportEndQuietly() throws {
        let run = try testscope(["run", "--package-path", Self.shapes.path, "--output", output.path, "--format", "json,html"], reader: .headOne)
        XCTAssertFalse(run.signaled, "run: killed by signal \(run.status): \(run.stderr)")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("error"), run.stderr)
        let reports = ["coverage.json", "tests.json", "index.html"].map { output.appendingPathComponent($0) }
        for engine in ["native", "llvm-cov"] {
            let arguments = ["report", "--output", output.path, "--engine", engine, "--package-path", Self.shapes.path]
            let staying = try TestscopeProcess.run(arguments)
            XCTAssertEqual(staying.status, 0, staying.stderr)
            for reader in [Reader.headOne, .goneFirst] {
                for report in reports { try FileManager.default.removeItem(at: report) }
                let ended = try testscope(arguments, reader: reader)
                XCTAssertFalse(ended.signaled, "\(engine) \(reader): killed by signal \(ended.status): \(ended.stderr)")
                XCTAssertEqual(ended.status, 0, "\(engine) \(reader): \(ended.stderr)")
                XCTAssertEqual(ended.stderr, staying.stderr, "\(engine) \(reader): stderr says what it says with a reader that stays")
                for report in reports {
                    XCTAssertTrue(FileManager.default.fileExists(atPath: report.path), "\(engine) \(reader): \(report.lastPathComponent) is written")
                }
            }
        }
    }

    /// What ArgumentParser prints itself (help, version) goes to stdio, not through the console.
    func testHelpAndVersionEndQuietly() throws {
        for arguments in [["--help"], ["report", "--help"], ["--version"]] {
            let ended = try testscope(arguments, reader: .goneFirst)
            XCTAssertFalse(ended.signaled, "\(arguments): killed by signal \(ended.status)")
            XCTAssertEqual(ended.status, 0, "\(arguments): \(ended.stderr)")
            XCTAssertEqual(ended.stderr, "", "\(arguments)")
        }
    }
}
