import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeTestResults

/// `sonarqube-coverage.xml`: SonarQube's generic coverage format (`sonar.coverageReportPaths`):
/// `<file path>` per source file, relative to the repository root, and a `<lineToCover lineNumber
/// covered>` per executable line. Branch attributes are left out: Swift emits no branch regions.
package struct SonarQubeCoverageReport: ReportRenderer {
    package var fileName: String { "sonarqube-coverage.xml" }
    /// The folder paths are relative to (`RepositoryRoot.find`; SonarQube's project base folder).
    package var sourceRoot: String

    package init(sourceRoot: String) { self.sourceRoot = sourceRoot }

    package func render<Output: TextOutput>(_ report: CoverageModel, to out: inout Output) throws {
        var w = ByteWriter()
        w.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage version=\"1\">\n")
        for file in report.files {
            w.append("  <file path=\""); w.append(string: XMLText.attribute(RepositoryRoot.relative(file.path, to: sourceRoot))); w.append("\">\n")
            for line in file.lines {
                // An unknown count (a negative counter expression) is not "covered" (as in every format; a warning says so).
                w.append("    <lineToCover lineNumber=\""); w.append(int: line.line)
                if line.isCovered { w.append("\" covered=\"true\"/>\n") } else { w.append("\" covered=\"false\"/>\n") }
                try w.flush(to: &out)
            }
            w.append("  </file>\n")
        }
        w.append("</coverage>\n")
        try w.flush(to: &out, force: true)
    }
}

/// `sonarqube-tests.xml`: SonarQube's generic test execution format (`sonar.testExecutionReportPaths`):
/// the tests grouped by the test file that declares them, `<testCase name duration>` (milliseconds)
/// with `<failure>`, `<error>` (crash, timeout, thrown error) or `<skipped>`, as in junit.xml.
package struct SonarQubeTestsReport: ReportRenderer {
    package var fileName: String { "sonarqube-tests.xml" }
    package var sourceRoot: String
    package var index: TestSourceIndex
    package var paths: PathDisplay

    package init(sourceRoot: String, packageRoot: String, index: TestSourceIndex) {
        self.sourceRoot = sourceRoot
        self.index = index
        self.paths = PathDisplay(root: packageRoot)
    }

    /// Tests grouped by their file (absolute path), in the run's order; and those whose file is unknown.
    package func grouped(_ run: TestRunResults) -> (files: [(path: String, results: [TestCaseResult])], unplaced: [TestCaseResult]) {
        var files: [(path: String, results: [TestCaseResult])] = []
        var position: [String: Int] = [:]
        var unplaced: [TestCaseResult] = []
        for result in run.results {
            guard let file = index.file(for: result) else { unplaced.append(result); continue }
            if let i = position[file] { files[i].results.append(result) } else {
                position[file] = files.count
                files.append((file, [result]))
            }
        }
        return (files, unplaced)
    }

    package func render<Output: TextOutput>(_ run: TestRunResults, to out: inout Output) throws {
        try out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testExecutions version=\"1\">\n")
        for (path, results) in grouped(run).files {
            try out.write("  <file path=\"\(XMLText.attribute(RepositoryRoot.relative(path, to: sourceRoot)))\">\n")
            for result in results {
                let name = ([result.suite].compactMap { $0 } + [result.caseName]).joined(separator: ".")
                let attributes = "name=\"\(XMLText.attribute(name))\" duration=\"\(Self.milliseconds(result.duration))\""
                guard let kind = JUnitReport.element(result) else {
                    try out.write("    <testCase \(attributes)/>\n")
                    continue
                }
                let message: String
                let body: String
                if kind == .skipped {
                    message = BoundedText.cap(TestText.oneLine(result.skipReason ?? "skipped"))
                    body = BoundedText.cap(result.skipReason ?? "")
                } else {
                    message = BoundedText.cap(TestText.headline(result))
                    body = BoundedText.cap(TestText.failureLines(result, paths: paths).joined(separator: "\n"), limit: BoundedText.outputLimit)
                }
                try out.write("    <testCase \(attributes)>\n      <\(kind.rawValue) message=\"\(XMLText.attribute(message))\">\(XMLText.content(body))</\(kind.rawValue)>\n    </testCase>\n")
            }
            try out.write("  </file>\n")
        }
        try out.write("</testExecutions>\n")
    }

    /// Whole milliseconds (SonarQube's `duration` is a long); 0 when unknown.
    static func milliseconds(_ seconds: Double?) -> Int64 {
        Int64((max(0, seconds ?? 0) * 1000).rounded())
    }
}
