import TestscopeCoverage
import TestscopeExecution

/// Where a renderer writes text: a file being written atomically, or a string.
package protocol TextOutput {
    mutating func write(_ text: String) throws
    /// UTF-8 bytes; files take them as they are.
    mutating func write(bytes: [UInt8]) throws
    /// UTF-8 bytes in place (valid during the call); files take them without a copy.
    mutating func write(buffer: UnsafeBufferPointer<UInt8>) throws
}

extension TextOutput {
    package mutating func write(buffer: UnsafeBufferPointer<UInt8>) throws { try write(bytes: Array(buffer)) }
}

extension AtomicFileWriter: TextOutput {
    package func write(buffer: UnsafeBufferPointer<UInt8>) throws { try write(bytes: buffer) }
}

/// Text collected in memory (terminal output, tests).
package struct StringOutput: TextOutput {
    package var text = ""
    package init() {}
    package mutating func write(_ text: String) throws { self.text += text }
}

/// One output file of a report, rendered from its subject (the coverage model, test results or a flaky
/// report; never by llvm-cov): every single-file format conforms, so rendering to a string and the
/// atomic write into the output folder exist once, here.
package protocol ReportRenderer<Subject> {
    /// What it renders: `CoverageReport`, `TestRunResults` or `FlakyReport`.
    associatedtype Subject
    /// The file name it writes inside the output folder.
    var fileName: String { get }
    func render<Output: TextOutput>(_ subject: Subject, to output: inout Output) throws
}

extension ReportRenderer {
    /// Renders into a string.
    package func renderString(_ subject: Subject) throws -> String {
        var output = StringOutput()
        try render(subject, to: &output)
        return output.text
    }

    /// Renders into `folder/fileName` atomically (a reader never sees half a file) and returns its path.
    @discardableResult
    package func write(_ subject: Subject, into folder: OutputFolder) throws -> String {
        let url = try folder.file(fileName)
        var writer = try AtomicFileWriter(destination: url)
        try render(subject, to: &writer)
        try writer.commit()
        return url.path
    }
}

/// The files one output wrote (paths in the output folder) and what to tell the user about them.
package struct WrittenFiles: Sendable {
    package var paths: [String]
    package var diagnostic: Diagnostic?

    package init(paths: [String], diagnostic: Diagnostic? = nil) {
        self.paths = paths
        self.diagnostic = diagnostic
    }
}

/// An output of several files (the HTML report's pages and assets, the Tests page with its landing
/// index): it writes them itself, each atomically, and returns what it wrote, its entry page first.
/// The top bar's links are given to it (see `PagesManifest`); it records nothing itself.
package protocol PageWriter<Subject> {
    associatedtype Subject
    /// The kinds of page it writes, for the output folder's manifest.
    var pageKinds: [ReportPageKind] { get }
    @discardableResult
    func writePages(_ subject: Subject, into folder: OutputFolder) throws -> [String]
}

/// Formatting shared by the renderers.
package enum Format {
    /// `85.71%`, or `–` for 0/0.
    package static func percent(_ ratio: CoverageRatio) -> String {
        guard let p = ratio.percent else { return "–" }
        return fixed(p, decimals: 2) + "%"
    }

    /// A fixed-decimals number without Foundation's locale-dependent formatting; a value below 100
    /// never rounds up to 100.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        let (whole, fraction, _) = fixedParts(value, decimals: decimals)
        guard decimals > 0 else { return String(whole) }
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    /// `value` rounded to `decimals` places (below 100 never shown as 100): the whole part, the
    /// decimals as an integer, and 10^decimals.
    static func fixedParts(_ value: Double, decimals: Int) -> (whole: Int64, fraction: Int64, scale: Int64) {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        var scaled = Int64((value * Double(scale)).rounded())
        if value < 100 && scaled >= 100 * scale { scaled = 100 * scale - 1 }
        return (scaled / scale, scaled % scale, scale)
    }

    /// Line ranges as coverage.py prints them: `12-14, 20`.
    package static func ranges(_ ranges: [ClosedRange<UInt32>]) -> String { ranges.lineRangesText }
}
