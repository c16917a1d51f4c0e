import Foundation
import TestscopeCoverage
import TestscopeExecution

/// `testscope report --tests-for PATH:LINE` / `--covered-by TEST`: questions to the `per-test.json` that
/// `run --per-test-coverage` left in the output folder.
public enum PerTestQuery: Sendable, Equatable {
    case testsFor(path: String, line: UInt32)
    case coveredBy(test: String)

    /// `PATH:LINE` as the user typed it (the path may itself contain `:`; the line is after the last one).
    public static func testsFor(_ text: String) throws -> PerTestQuery {
        guard let colon = text.lastIndex(of: ":"), let line = UInt32(text[text.index(after: colon)...]), line > 0,
              colon > text.startIndex else {
            throw PerTestError.malformedLocation(text)
        }
        return .testsFor(path: String(text[..<colon]), line: line)
    }
}

/// Why a per-test question has no answer: what, which file, what to do.
public enum PerTestError: LocalizedError, ClassifiedError, Equatable {
    case malformedLocation(String)
    case noData(path: String)
    case unreadable(path: String, reason: String)
    case unknownFile(path: String, data: String)
    case noSuchLine(path: String, line: UInt32, lastLine: UInt32, data: String)
    case unknownTest(test: String, data: String)

    public var errorDescription: String? {
        switch self {
        case let .malformedLocation(text):
            return "--tests-for takes PATH:LINE (e.g. Sources/Lib/File.swift:42), not '\(text)'"
        case let .noData(path):
            return "no per-test coverage at \(path); run `testscope run --per-test-coverage` first (or pass its --output)"
        case let .unreadable(path, reason):
            return "\(path) is not readable per-test coverage (\(reason)); run `testscope run --per-test-coverage` again"
        case let .unknownFile(path, data):
            return "\(path) is not a source file of the per-test coverage in \(data); give its path relative to the package root as the reports show it"
        case let .noSuchLine(path, line, lastLine, data):
            return "\(path) has no line \(line) (it has \(lastLine) in \(data)); give a line of the file"
        case let .unknownTest(test, data):
            return "no test \(test) in \(data); give its id as `swift test list` prints it (Module.Class/testMethod, Module.Suite/test())"
        }
    }

    public var errorClass: ErrorClass {
        if case .malformedLocation = self { return .usage }
        return .badInput
    }
}

extension Pipeline {
    /// Answers a per-test question on stdout from the `per-test.json` in `folder`: test ids one per
    /// line, or `PATH:LINES` ranges.
    func perTest(_ query: PerTestQuery, packageRoot: URL, folder: URL) throws -> Outcome {
        let url = folder.appendingPathComponent(PerTestReporting.fileName)
        let data = try Self.readPerTest(url)
        switch query {
        case let .testsFor(path, line):
            guard let file = data.file(matching: path) else { throw PerTestError.unknownFile(path: path, data: url.path) }
            let lastLine = Self.lineCount(packageRoot.appendingPathComponent(file.path)) ?? file.lastLine
            guard line <= lastLine else { throw PerTestError.noSuchLine(path: file.path, line: line, lastLine: lastLine, data: url.path) }
            let tests = data.tests(running: line, in: file)
            for test in tests { terminal.printLine(test) }
            if tests.isEmpty { terminal.note("no test ran \(file.path):\(line)") }
        case let .coveredBy(test):
            guard data.contexts.contains(where: { $0.id == test }) || data.lost.contains(test) else {
                throw PerTestError.unknownTest(test: test, data: url.path)
            }
            if data.lost.contains(test) {
                terminal.emit(.warning("\(test)'s coverage was lost (its process crashed or was killed during the test)"))
            }
            for (path, ranges) in data.lines(coveredBy: test) { terminal.printLine("\(path):\(PerTestCoverage.text(ranges))") }
        }
        return Outcome()
    }

    static func readPerTest(_ url: URL) throws -> PerTestCoverage {
        guard FileManager.default.fileExists(atPath: url.path) else { throw PerTestError.noData(path: url.path) }
        let data: PerTestCoverage
        do {
            data = try JSONDecoder().decode(PerTestCoverage.self, from: try Data(contentsOf: url))
        } catch {
            throw PerTestError.unreadable(path: url.path, reason: "not the JSON `run --per-test-coverage` writes")
        }
        guard data.version == PerTestCoverage.formatVersion else {
            throw PerTestError.unreadable(path: url.path, reason: "format version \(data.version), this Testscope reads \(PerTestCoverage.formatVersion)")
        }
        return data
    }

    /// The number of lines of a source file, when it can be read.
    static func lineCount(_ url: URL) -> UInt32? {
        guard let bytes = FileManager.default.contents(atPath: url.path) else { return nil }
        let newlines = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return UInt32(clamping: newlines + (bytes.last == 0x0A || bytes.isEmpty ? 0 : 1))
    }
}
