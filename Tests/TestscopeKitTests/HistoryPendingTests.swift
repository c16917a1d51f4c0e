import Foundation
import TestscopeExecution
import TestscopeHistory
import TestscopeKit
import TestscopeTestSupport
import XCTest

/// Nothing lost when the PostgreSQL server is away: the record is kept in the output folder with one
/// warning naming the file, and the next run that reaches the server sends it (a real throwaway server).
final class HistoryPendingTests: XCTestCase {
    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("pending-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }
    override class func tearDown() { PostgresCluster.stopShared() }

    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console), environment: [:])
    }

    func testARunIsKeptWhileTheServerIsAwayAndSentByTheNextOne() throws {
        let cluster = try PostgresCluster.sharedCluster()
        let folder = OutputFolder(output)
        let pending = output.appendingPathComponent("history-pending.sqlite")
        // No server on this socket folder: away.
        let away = URL(string: "postgresql://ci:hunter2-secret@/hist?host=\(output.path)")!
        let kept = try pipeline.recordHistory(Outcome(), command: "run", packageRoot: output, history: away, output: folder, startedAt: Date())
        XCTAssertEqual(kept.store, pending)
        XCTAssertEqual(try HistoryStore(url: pending, mode: .read).records().map(\.run.uuid), [kept.record.run.uuid])
        let warnings = console.diagnosticsText.split(separator: "\n")
        XCTAssertEqual(warnings.count, 1, console.diagnosticsText)
        XCTAssertTrue(warnings[0].hasPrefix("testscope: warning: this run is kept in \(pending.path) "), String(warnings[0]))
        XCTAssertFalse(console.diagnosticsText.contains("hunter2"), "the password is never printed")

        // The server answers: this run is stored and the kept one is sent; the file is gone.
        let url = try cluster.createDatabase()
        let stored = try pipeline.recordHistory(Outcome(), command: "run", packageRoot: output, history: url, output: folder, startedAt: Date())
        XCTAssertEqual(stored.store, url)
        XCTAssertEqual(Set(try HistoryStore(url: url, mode: .read).records().map(\.run.uuid)), [kept.record.run.uuid, stored.record.run.uuid])
        XCTAssertFalse(FileManager.default.fileExists(atPath: pending.path))
        XCTAssertTrue(console.outputText.contains("sent 1 run kept in \(pending.path)") || console.diagnosticsText.contains("sent 1 run kept in"),
                      console.outputText + console.diagnosticsText)
    }
}
