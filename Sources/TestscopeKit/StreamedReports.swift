import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports

/// The coverage outputs that read the files as the model is built (`Outputs.CoverageInput.streamed`:
/// `coverage.json`, `coverage.lcov`, the HTML file pages), and each file's changed lines
/// (`--diff-base`), classified before it is written. The files are kept whole (`model`) only when an
/// output reads the whole model (`Outputs.keepsFileDetail`) or per-test coverage reads the lines;
/// otherwise the report keeps their summaries.
final class StreamedReports {
    private let outputs: Outputs
    private let html: HTMLReport?
    private let output: OutputFolder
    private let metadata: ReportMetadata
    private let keepsDetail: Bool
    private var classifier: DiffClassifier?
    private let diffBase: String?
    /// Each changed file's lines, by relative path (few: the files of a change).
    private var changes: [String: DiffFileCoverage] = [:]
    private var streams: [(format: ReportFormat, stream: any CoverageFileStream)]?
    /// Every file, whole, when kept.
    private var kept: [FileCoverage] = []

    init(outputs: Outputs, html: HTMLReport?, output: OutputFolder, metadata: ReportMetadata, pullRequest: PullRequestContext?,
         equivalences: [PathEquivalence], keepsDetail: Bool) {
        self.outputs = outputs
        self.html = html
        self.output = output
        self.metadata = metadata
        self.classifier = pullRequest?.diffClassifier(equivalences: equivalences)
        self.diffBase = pullRequest?.changes?.base
        self.keepsDetail = keepsDetail || outputs.keepsFileDetail
    }

    /// The changed lines of the files written (`--diff-base`).
    var diff: DiffCoverage? { classifier?.result() }

    /// Before the first file (or at the end, when no file came): the output folder, the streams.
    func start() throws {
        guard streams == nil else { return }
        try output.prepare()
        streams = try outputs.coverageFormats(reading: .streamed).map { format in
            (format, try Outputs.stream(format, html: html, metadata: metadata, diffBase: diffBase,
                                        changes: { [unowned self] in self.changes[$0.relativePath] }, into: output))
        }
    }

    /// A batch of the model's files: classified against the change, written, and kept when needed.
    func add(_ files: [FileCoverage]) throws {
        try start()
        if classifier != nil {
            for file in files { if let changed = classifier!.classify(file) { changes[file.relativePath] = changed } }
        }
        for (_, stream) in streams ?? [] { try stream.add(files) }
        if keepsDetail { kept += files }
    }

    /// The whole model of `report` when its files were kept (nil otherwise).
    func model(_ report: CoverageReport) -> CoverageModel? {
        keepsDetail ? CoverageModel(report: report, files: kept) : nil
    }

    /// Puts a streamed format in place (the model, with its totals, diff and warnings); the paths written.
    func finish(_ format: ReportFormat, _ report: CoverageReport) throws -> [String] {
        guard let stream = streams?.first(where: { $0.format == format })?.stream else { return [] }
        return try stream.finish(report)
    }
}
