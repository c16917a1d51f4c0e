import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeProfileData
import TestscopeReports
import TestscopeRun
import TestscopeTestResults

/// `run --per-test-coverage`: the entry point the tests are built with, and, after the run, the
/// processes' per-test counts turned into `per-test.json` (the work folder is removed: no profile per
/// test is kept).
struct PerTestReporting {
    static let fileName = "per-test.json"
    var terminal: Terminal

    /// Writes `EntryPointSource`'s main into the build folder (only when it changed), for every `run` in
    /// Testscope's build. When the package's name cannot be read, `--per-test-coverage` (`required`) fails
    /// as `flaky` does; a plain run builds with SwiftPM's entry point, and the build says what is wrong.
    static func entryPoint(swift: URL, packageRoot: URL, scratchPath: URL, required: Bool, environment: [String: String]) throws -> URL? {
        #if os(macOS)
        if required { throw FlakinessError.unsupportedPlatform }
        return nil
        #else
        do {
            return try InstrumentedBuild(swift: swift, packageRoot: packageRoot, scratchPath: scratchPath, environment: environment).writeEntryPoint()
        } catch let error as InstrumentedBuild.ManifestError {
            if required { throw FlakinessError.buildFailed(scratchPath: scratchPath.path, log: error.detail) }
            return nil
        }
        #endif
    }

    /// Removes an earlier run's `per-test.json` and file-page data, so that a run never leaves answers
    /// that are not its own.
    static func removeStale(in output: OutputFolder) {
        try? FileManager.default.removeItem(at: output.url.appendingPathComponent(fileName))
        let files = output.url.appendingPathComponent("files")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: files.path)) ?? [] where name.hasSuffix(".tests.js") {
            try? FileManager.default.removeItem(at: files.appendingPathComponent(name))
        }
        try? FileManager.default.removeItem(at: output.url.appendingPathComponent(PerTestPages.testsFolder))
    }

    /// `htmlTemplates`: also the HTML pages' lazily loaded data and script (`PerTestPages`; not in a
    /// single-file report); returns the per-test coverage and the number of chunks of the Tests page's data
    /// then, nil without. `impact`: also the run's test impact map (into `outcome.impactMap`).
    @discardableResult
    func write(from directory: URL, binary: URL, model: CoverageModel, tests: TestRunResults, output: OutputFolder,
               htmlTemplates: HTMLTemplates?, impact: ImpactRecording? = nil, into outcome: inout Outcome) throws -> (coverage: PerTestCoverage, chunks: Int?) {
        defer { try? FileManager.default.removeItem(at: directory) }
        terminal.progress("reading per-test coverage")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var processes: [PerTestProcess] = []
        for name in names.sorted() where name.hasSuffix(".contexts") {
            let pid = String(name.dropLast(".contexts".count))
            let layoutPath = directory.appendingPathComponent(pid + ".layout.profraw").path
            do {
                guard let layout = try RawProfileReader.read(path: layoutPath).first else { continue }
                let contexts = try PerTestContextFile.read(path: directory.appendingPathComponent(name).path)
                processes.append(PerTestProcess(layout: layout, blocks: contexts.blocks))
            } catch {
                terminal.emit(.warning("per-test coverage of test process \(pid) is unreadable (\(error)); "
                    + "its tests are reported as lost"))
            }
        }
        let mapping = try CoverageMappingReader.records(binaryAt: binary.path)
        let mapped = try (0..<mapping.count).map { try mapping.function(at: $0) }
        let ran = tests.results.filter { $0.outcome != .skipped }.map(\.id)
        let (perTest, entered, regions) = PerTestBuilder.record(mapped: mapped, processes: processes, model: model, ranTests: ran)
        outcome.impactMap = impact?.map(mapped: mapped, coverage: perTest, regions: regions, entered: entered, tests: tests)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let url = try output.file(Self.fileName)
        try AtomicFileWriter.write(String(decoding: try encoder.encode(perTest), as: UTF8.self), to: url)
        outcome.written.append(url.path)
        let chunks = try htmlTemplates.map { try PerTestPages.write(perTest, model: model, templates: $0, into: output) }
        let tests = Set(perTest.contexts.dropFirst().map(\.id)).count
        terminal.note("per-test coverage of \(tests) test(s) in \(url.path)")
        if !perTest.lost.isEmpty {
            terminal.emit(.warning("per-test coverage lost for \(perTest.lost.count) test(s) "
                + "(their process crashed or was killed during the test): "
                + perTest.lost.prefix(5).joined(separator: ", ") + (perTest.lost.count > 5 ? ", …" : "")))
        }
        return (perTest, chunks)
    }
}
