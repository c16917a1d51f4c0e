import Foundation
import TestscopeCoverage
import TestscopeExecution

/// Writes `cobertura.xml`, or one `cobertura-<target>.xml` per target when the whole would exceed
/// GitLab's limit for one coverage report (10 MiB; docs.gitlab.com, ci/testing/code_coverage/cobertura).
/// Every file keeps the one `<source>` (GitLab allows 100), so splitting is only about size.
package struct CoberturaFiles {
    /// GitLab refuses larger Cobertura files.
    package static let gitLabLimit = 10 * 1024 * 1024

    package var renderer: CoberturaReport
    /// Bytes per file (GitLab's limit; smaller in tests).
    package var limit: Int

    package init(renderer: CoberturaReport, limit: Int = gitLabLimit) {
        self.renderer = renderer
        self.limit = limit
    }

    /// The files written, and the note that says the report was split (nil when it was not).
    package func write(_ report: CoverageModel, into folder: OutputFolder) throws -> WrittenFiles {
        try removeSplitFiles(in: folder)
        // Streamed to the file (18 MiB on the 400-file synthetic package: no copy in memory), then measured.
        let path = try renderer.write(report, into: folder)
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        guard size > limit else { return WrittenFiles(paths: [path], diagnostic: nil) }
        let packages = CoberturaReport.packages(report)
        guard packages.count > 1 else {
            return WrittenFiles(paths: [path], diagnostic: .warning(file: path, "\(Self.mebibytes(size)) is over GitLab's 10 MiB limit for a Cobertura report, and the report has one target, so it cannot be split per target; narrow it with --include/--exclude"))
        }
        // Split: the whole file is removed, so a `cobertura*.xml` glob never counts a file twice.
        try FileManager.default.removeItem(atPath: path)
        var paths: [String] = []
        var tooLarge: [String] = []
        for (name, files) in packages {
            var part = renderer
            part.fileName = Self.splitName(name)
            let written = try part.write(CoverageModel(files: files, metadata: report.metadata), into: folder)
            let partSize = ((try? FileManager.default.attributesOfItem(atPath: written))?[.size] as? NSNumber)?.intValue ?? 0
            if partSize > limit { tooLarge.append(part.fileName) }
            paths.append(written)
        }
        var message = "cobertura.xml would be \(Self.mebibytes(size)), over GitLab's 10 MiB limit: wrote one file per target instead ("
            + paths.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", ")
            + "); point coverage_report at cobertura-*.xml"
        if !tooLarge.isEmpty { message += "; still over the limit: \(tooLarge.joined(separator: ", "))" }
        return WrittenFiles(paths: paths, diagnostic: Diagnostic(tooLarge.isEmpty ? .note : .warning, message))
    }

    /// `cobertura-<target>.xml`, the target name reduced to characters safe in a file name.
    package static func splitName(_ target: String) -> String {
        let safe = String(target.unicodeScalars.map { scalar -> Character in
            let v = scalar.value
            let ok = (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || v == 0x2D || v == 0x5F || v == 0x2E
            return ok ? Character(scalar) : "_"
        })
        return "cobertura-\(safe.isEmpty || safe.hasPrefix(".") ? "_" + safe : safe).xml"
    }

    /// Split files of an earlier report: left in place they would be read with this one.
    private func removeSplitFiles(in folder: OutputFolder) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []
        for name in names where name.hasPrefix("cobertura-") && name.hasSuffix(".xml") {
            try FileManager.default.removeItem(at: try folder.file(name))
        }
    }

    static func mebibytes(_ bytes: Int) -> String { Format.fixed(Double(bytes) / 1_048_576, decimals: 1) + " MiB" }
}
