import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports

/// The coverage formats written file by file while the model is built (`coverage.json`,
/// `coverage.lcov`, the HTML file pages), and what a file needs before it is written: SwiftPM's
/// layout (the filter, its target) and its changed lines (`--diff-base`). Afterwards a file keeps
/// only its summary (`FileCoverage.summaryOnly()`) unless a later step reads its lines: Cobertura,
/// SonarQube, the single-file HTML report, per-test coverage. At 1,500 files the lines and
/// functions of every file were 50 MB of the peak, held until the last format was written.
final class StreamedReports {
    private let formats: [ReportFormat]
    private let html: HTMLReport?
    private let output: OutputFolder
    private var metadata: ReportMetadata
    private let settings: ReportSettings
    private let packageRoot: URL
    private let conventional: PackageLayout
    /// SwiftPM's layout: waits for `swift package describe` when the manifest needs it.
    private let described: () -> PackageLayout?
    private let keepsDetail: Bool
    private var classifier: DiffClassifier?
    private let diffBase: String?
    /// Each changed file's lines, by relative path (few: the files of a change).
    private var changes: [String: DiffFileCoverage] = [:]
    private var refined: (layout: PackageLayout, filter: SourceFilter)?
    private var streams: [(format: ReportFormat, stream: any CoverageFileStream)]?

    init(formats: [ReportFormat], html: HTMLReport?, output: OutputFolder, metadata: ReportMetadata, settings: ReportSettings,
         packageRoot: URL, conventional: PackageLayout, described: @escaping () -> PackageLayout?, pullRequest: PullRequestContext?,
         keepsDetail: Bool) {
        self.formats = formats
        self.html = html
        self.output = output
        self.metadata = metadata
        self.settings = settings
        self.packageRoot = packageRoot
        self.conventional = conventional
        self.described = described
        self.classifier = pullRequest?.diffClassifier(equivalences: settings.pathEquivalences)
        self.diffBase = pullRequest?.changes?.base
        self.keepsDetail = keepsDetail || formats.contains(.cobertura) || formats.contains(.sonarqube) || (html?.singleFile ?? false)
    }

    /// The package's name once the layout is known (`start()`), unless the caller gave it.
    var packageName: String? { metadata.packageName }

    /// The changed lines of the files written (`--diff-base`).
    var diff: DiffCoverage? { classifier?.result() }

    /// Before the first file (or at the end, when no file came): the layout, the output folder, the streams.
    func start() throws {
        guard streams == nil else { return }
        let layout = described()
        if let layout, layout != conventional {
            refined = (layout, try settings.sourceFilter(packageRoot: packageRoot, layout: layout))
        }
        if metadata.packageName == nil { metadata.packageName = layout?.name }
        try output.prepare()
        var streams: [(format: ReportFormat, stream: any CoverageFileStream)] = []
        if formats.contains(.json) {
            streams.append((.json, try JSONStream(JSONReport(generatorVersion: TestscopeVersion.current), metadata: metadata, into: output)))
        }
        if formats.contains(.lcov) { streams.append((.lcov, try LCOVStream(into: output))) }
        if let html, !html.singleFile {
            streams.append((.html, try HTMLFileStream(html, metadata: metadata, diffBase: diffBase,
                                                      changes: { [unowned self] in self.changes[$0.relativePath] }, into: output)))
        }
        self.streams = streams
    }

    /// A batch of the model's files: refined by SwiftPM's layout, classified against the change,
    /// written, and reduced to their summaries.
    func add(_ files: inout [FileCoverage]) throws {
        try start()
        if let refined {
            files.removeAll { !refined.filter.includes($0.path) }
            for i in files.indices { files[i].target = refined.layout.target(for: files[i].relativePath) }
        }
        if classifier != nil {
            for file in files { if let changed = classifier!.classify(file) { changes[file.relativePath] = changed } }
        }
        for (_, stream) in streams ?? [] { try stream.add(files) }
        if !keepsDetail {
            // In place, each file on the core that reduces it: its lines and functions freed there.
            files.withUnsafeMutableBufferPointer { files in
                _ = Parallel.map(files.count) { files[$0].reduceToSummary() }
            }
        }
    }

    /// Puts the streamed formats in place (`report`: the model, with its totals, diff and
    /// warnings); the paths written by format.
    func finish(_ format: ReportFormat, _ report: CoverageReport) throws -> [String] {
        guard let stream = streams?.first(where: { $0.format == format })?.stream else { return [] }
        return try stream.finish(report)
    }
}
