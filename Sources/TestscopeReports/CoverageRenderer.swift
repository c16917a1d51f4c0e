import TestscopeCoverage
import TestscopeExecution

/// Where a renderer writes text: a file being written atomically, or a string.
public protocol TextOutput {
    mutating func write(_ text: String) throws
    /// UTF-8 bytes; files take them as they are.
    mutating func write(bytes: [UInt8]) throws
}

extension AtomicFileWriter: TextOutput {}

/// Text collected in memory (terminal output, tests).
public struct StringOutput: TextOutput {
    public var text = ""
    public init() {}
    public mutating func write(_ text: String) throws { self.text += text }
}

/// One output format, rendered from Testscope's coverage model (never by llvm-cov).
public protocol CoverageRenderer {
    /// The file name it writes inside the output folder.
    var fileName: String { get }
    func render<Output: TextOutput>(_ report: CoverageReport, to output: inout Output) throws
}

extension CoverageRenderer {
    /// Renders into a string.
    public func renderString(_ report: CoverageReport) throws -> String {
        var output = StringOutput()
        try render(report, to: &output)
        return output.text
    }

    /// Renders into `folder/fileName` atomically and returns the written file.
    @discardableResult
    public func write(_ report: CoverageReport, into folder: OutputFolder) throws -> String {
        let url = try folder.file(fileName)
        var writer = try AtomicFileWriter(destination: url)
        try render(report, to: &writer)
        try writer.commit()
        return url.path
    }
}

/// Formatting shared by the renderers.
public enum Format {
    /// `85.71%`, or `–` for 0/0.
    public static func percent(_ ratio: CoverageRatio) -> String {
        guard let p = ratio.percent else { return "–" }
        return fixed(p, decimals: 2) + "%"
    }

    /// A fixed-decimals number without Foundation's locale-dependent formatting; a value below 100
    /// never rounds up to 100.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        var scaled = Int64((value * Double(scale)).rounded())
        if value < 100 && scaled >= 100 * scale { scaled = 100 * scale - 1 }
        let whole = scaled / scale
        guard decimals > 0 else { return String(whole) }
        let digits = String(scaled % scale)
        return "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    /// Line ranges as coverage.py prints them: `12-14, 20`.
    public static func ranges(_ ranges: [ClosedRange<UInt32>]) -> String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ", ")
    }
}
