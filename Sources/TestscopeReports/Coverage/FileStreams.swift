import Foundation
import TestscopeCoverage
import TestscopeExecution

/// A coverage report written file by file while the model is built (streaming: the files' lines and
/// functions are let go once written, `CoverageBuilder.build(sources:onFiles:)`). `add` gets each
/// batch of files, whole, in the report's order; `finish` the model, whose files may keep only their
/// summaries, and returns the paths written. Without `finish` nothing is put in place.
package protocol CoverageFileStream: AnyObject {
    func add(_ files: [FileCoverage]) throws
    func finish(_ report: CoverageReport) throws -> [String]
}

/// `coverage.lcov`, its records written a batch of files at a time.
package final class LCOVStream: CoverageFileStream {
    private let writer: AtomicFileWriter

    package init(into folder: OutputFolder) throws {
        writer = try AtomicFileWriter(destination: try folder.file(LCOVReport().fileName))
    }

    package func add(_ files: [FileCoverage]) throws {
        var out = writer
        try LCOVReport().writeFiles(files, to: &out)
    }

    package func finish(_ report: CoverageReport) throws -> [String] {
        try writer.commit()
        return [writer.destination.path]
    }
}

/// `coverage.json` written in one pass: its head at once, the files a batch at a time, and, when
/// the totals are known, the tail with them (docs/coverage-json.md).
package final class JSONStream: CoverageFileStream {
    private let renderer: JSONReport
    private let file: AtomicFileWriter
    private var count = 0

    /// `coverage.json` begun: its head, which `metadata` gives, is written now, the files as they come.
    package init(_ renderer: JSONReport, metadata: ReportMetadata, into folder: OutputFolder) throws {
        self.renderer = renderer
        // Committed by `finish`; removed if the report stops before (an error, Ctrl-C).
        var file = try AtomicFileWriter(destination: try folder.file(renderer.fileName))
        try renderer.writeHead(metadata, to: &file)
        self.file = file
    }

    package func add(_ files: [FileCoverage]) throws {
        var out = file
        try renderer.writeFiles(files, startIndex: count, to: &out)
        count += files.count
    }

    package func finish(_ report: CoverageReport) throws -> [String] {
        var out = file
        try renderer.writeTail(report, to: &out)
        try out.commit()
        return [out.destination.path]
    }
}

/// The HTML report's pages written as the files come: a file's page once the file after it is
/// known (its page links it), on every core; the assets first, and `index.html` and the directory
/// pages (which need every file's summary) at the end.
package final class HTMLFileStream: CoverageFileStream {
    private let html: HTMLReport
    private let folder: OutputFolder
    private let metadata: ReportMetadata
    private let diffBase: String?
    private let changes: (FileCoverage) -> DiffFileCoverage?
    private var namer = HTMLPageNames.Namer()
    /// Every file's page name, in order.
    private var pages: [String] = []
    /// The last page written: the next one links it.
    private var previous: NeighbourModel?
    /// The last file given, waiting for the file after it.
    private var held: (file: FileCoverage, page: String)?

    /// `changes` gives a file's changed lines (`--diff-base`), `diffBase` what they are compared with.
    package init(_ html: HTMLReport, metadata: ReportMetadata, diffBase: String?, changes: @escaping (FileCoverage) -> DiffFileCoverage?,
                into folder: OutputFolder) throws {
        self.html = html
        self.folder = folder
        self.metadata = metadata
        self.diffBase = diffBase
        self.changes = changes
        try folder.prepare()
        try html.writeAssets(into: folder)
        try html.makeFolder(folder, "files")
    }

    package func add(_ files: [FileCoverage]) throws {
        guard !files.isEmpty else { return }
        var batch = held.map { [$0] } ?? []
        for file in files {
            let page = namer.next(file.relativePath)
            pages.append(page)
            batch.append((file, page))
        }
        held = batch.removeLast()
        try write(batch, next: held)
    }

    private func write(_ batch: [(file: FileCoverage, page: String)], next: (file: FileCoverage, page: String)?) throws {
        guard !batch.isEmpty else { return }
        let html = self.html, folder = self.folder
        let neighbours = batch.map { html.neighbour($0.file, href: $0.page) }
        let after = next.map { html.neighbour($0.file, href: $0.page) }
        let contexts = batch.indices.map { i in
            HTMLReport.FilePageContext(metadata: metadata, diffBase: diffBase, changes: changes(batch[i].file),
                                       previous: i == 0 ? previous : neighbours[i - 1],
                                       next: i + 1 < batch.count ? neighbours[i + 1] : after)
        }
        _ = try html.renderConcurrently(batch.count) { i -> Bool in
            try html.writeFilePage(batch[i].file, page: batch[i].page, context: contexts[i], into: folder)
            return true
        }
        previous = neighbours.last
    }

    /// The last file's page, then `index.html` and the directory pages from `report` (the same files, in the same order).
    package func finish(_ report: CoverageReport) throws -> [String] {
        if let held {
            try write([held], next: nil)
            self.held = nil
        }
        guard report.files.count == pages.count else {
            throw ReportError.streamMismatch(expected: pages.count, actual: report.files.count)
        }
        let fileHrefs = pages.map { "files/" + $0 }
        let split = report.files.count > html.filesPerPage
        var written = Set(fileHrefs)
        let index = try folder.file("index.html")
        let html = self.html
        let writeIndex = { @Sendable (directoryLinks: [String: String]) throws in
            let text = try html.indexPage(report, body: try html.indexBody(report, fileHrefs: fileHrefs, split: split, directoryLinks: directoryLinks))
            try AtomicFileWriter.write(text, to: index)
        }
        if split {
            // index.html among the directory pages, which give it their links.
            written.formUnion(try html.writeDirectoryPages(report, filePages: pages, into: folder, alongside: writeIndex).written)
        } else {
            try writeIndex([:])
        }
        try html.removeStalePages(in: folder, keeping: written)
        return [index.path] + written.sorted().map { folder.path(ofWritten: $0) }
    }
}
