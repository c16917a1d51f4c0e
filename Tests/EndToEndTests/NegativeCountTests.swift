import Foundation
import XCTest

/// The LoopFilter fixture (issue 41, item 3 and the HTML bits of item 11), run for real once: Swift's
/// coverage mapping of `for … where … { return … }` gives the lines after the loop a negative count
/// (`llvm-cov show`: 18.4E) in a serial XCTest run with atomic counters, so it is no counter race and the
/// warning says what it is; those lines are unknown (not missed) in every format. Its long source line
/// stays inside the file page, and a failing assertion reached three times on one line shows its
/// source once on the Tests page.
final class NegativeCountTests: XCTestCase {
    static let package = TestscopeProcess.samples.appendingPathComponent("packages/LoopFilter")
    static let source = "Sources/LoopFilter/LoopFilter.swift"

    /// One `run` for every test of the class (the build is the slow part).
    struct Run {
        var folder: URL
        var output: URL
        var result: TestscopeProcess.Result
    }
    nonisolated(unsafe) static var shared: Run?

    func fixtureRun() throws -> Run {
        if let shared = Self.shared { return shared }
        let folder = try TestscopeProcess.temporaryDirectory("negative-counts")
        let output = folder.appendingPathComponent("out")
        let result = try TestscopeProcess.run(["run", "--package-path", Self.package.path, "--output", output.path, "--keep-llvm-artifacts"],
                                              environment: ["COLUMNS": "200"])
        XCTAssertEqual(result.status, 1, "the fixture has one failing test: \(result.stderr)")
        Self.shared = Run(folder: folder, output: output, result: result)
        return Self.shared!
    }

    override class func tearDown() {
        if let shared { try? FileManager.default.removeItem(at: shared.folder) }
        shared = nil
    }

    /// The lines `llvm-cov show` prints with a wrapped (≥ 2^63, "E") count, on the run's own profile and binary.
    func wrappedLines(_ run: Run) throws -> Set<Int> {
        let binary = try TestscopeProcess.testBinary(ofRunIn: run.output)
        let llvmCov = URL(fileURLWithPath: "/opt/swift/usr/bin/llvm-cov")
        let show = try XCTUnwrap(TestscopeProcess.output(of: [llvmCov.path, "show", "-instr-profile",
                                                             run.output.appendingPathComponent("default.profdata").path, binary.path,
                                                             Self.package.appendingPathComponent(Self.source).path]))
        var lines = Set<Int>()
        for row in show.split(separator: "\n") {
            let columns = row.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard columns.count == 3, let number = Int(columns[0].trimmingCharacters(in: .whitespaces)),
                  columns[1].trimmingCharacters(in: .whitespaces).hasSuffix("E") else { continue }
            lines.insert(number)
        }
        return lines
    }

    func testForWhereReturnIsTheCompilersMappingNotACounterRace() throws {
        let run = try fixtureRun()
        let wrapped = try wrappedLines(run)
        XCTAssertFalse(wrapped.isEmpty, "llvm-cov show prints no wrapped count: the fixture no longer reproduces the mapping")

        // coverage.json: exactly those lines are unknown.
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: run.output.appendingPathComponent("coverage.json"))) as? [String: Any])
        let files = try XCTUnwrap(json["files"] as? [[String: Any]])
        let file = try XCTUnwrap(files.first { $0["path"] as? String == Self.source })
        let unknown = Set(try XCTUnwrap(file["lines"] as? [[String: Any]]).filter { $0["unreliable"] as? Bool == true }.compactMap { $0["line"] as? Int })
        XCTAssertEqual(unknown, wrapped)

        // One warning, naming the lines and the cause; a race is ruled out (atomic counters, XCTest one at a time).
        let warnings = run.result.stderr.components(separatedBy: "testscope: warning: ").dropFirst().filter { $0.contains("unknown count") }
        XCTAssertEqual(warnings.count, 1, run.result.stderr)
        let warning = warnings.first?.replacingOccurrences(of: "\n", with: " ") ?? ""
        let ranges = wrapped.sorted()
        XCTAssertTrue(warning.contains("\(Self.source):\(ranges.first!)-\(ranges.last!)") || warning.contains("\(Self.source):\(ranges.first!)"), warning)
        XCTAssertTrue(warning.contains("the compiler's coverage mapping"), warning)
        XCTAssertTrue(warning.contains("not a counter race"), warning)
        XCTAssertFalse(warning.contains("lost increments"), warning)

        // `report` of the same run says the same.
        let again = try TestscopeProcess.run(["report", "--package-path", Self.package.path, "--output", run.output.path, "--format", "json"],
                                             environment: ["COLUMNS": "200"])
        XCTAssertEqual(again.status, 1, again.stderr)
        let repeated = again.stderr.components(separatedBy: "testscope: warning: ").dropFirst().filter { $0.contains("unknown count") }
        XCTAssertEqual(repeated.map { $0.replacingOccurrences(of: "\n", with: " ") }, [warning], again.stderr)

        // HTML: unknown ("?"), neither missed nor covered, in the neutral style; the header names what read the data.
        let page = try Chromium.load(run.output.appendingPathComponent("files/Sources.LoopFilter.LoopFilter.swift.html"), in: run.folder)
        page.assertClean()
        let rows = page.sourceRows()
        XCTAssertEqual(Set(rows.filter { $0.value.state == "unr" }.keys), wrapped)
        for line in wrapped { XCTAssertEqual(rows[line]?.count, "?", "line \(line)") }
        let css = try String(contentsOf: run.output.appendingPathComponent("assets/report.css"), encoding: .utf8)
        let unknownRules = css.split(separator: "\n").filter { $0.contains("tr.unr") || $0.contains(".key.unr") }
        XCTAssertFalse(unknownRules.isEmpty)
        for rule in unknownRules {
            XCTAssertFalse(rule.contains("--lo") || rule.contains("--unc"), "an unknown line is painted as missed: \(rule)")
        }
        let index = try Chromium.load(run.output.appendingPathComponent("index.html"), in: run.folder)
        XCTAssertEqual(try index.text("//div[dt='Read by']/dd"), "Testscope's native engine (no llvm-cov)")
    }

    /// The long line wraps inside the source block at desktop and phone widths: the page is no wider
    /// than its window, and the line's number and count stay level with its first line.
    func testALongSourceLineStaysInsideTheFilePage() throws {
        let run = try fixtureRun()
        let page = run.output.appendingPathComponent("files/Sources.LoopFilter.LoopFilter.swift.html")
        let source = try String(contentsOf: Self.package.appendingPathComponent(Self.source), encoding: .utf8)
        let long = try XCTUnwrap(source.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.count > 200 }) + 1
        for width in [1280, 400] {
            let measured = try Chromium.measure(page, width: width, expression: """
                [doc.documentElement.scrollWidth, doc.documentElement.clientWidth,
                 Math.round(doc.querySelector('.source-wrap').getBoundingClientRect().right),
                 doc.querySelector('.source-wrap').scrollWidth - doc.querySelector('.source-wrap').clientWidth,
                 Math.round(doc.querySelector('#L\(long) .code').getBoundingClientRect().height
                   / parseFloat(getComputedStyle(doc.querySelector('#L\(long) .code')).lineHeight)),
                 Math.round(doc.querySelector('#L\(long) .ln').getBoundingClientRect().top
                   - doc.querySelector('#L\(long) .code').getBoundingClientRect().top)].join(' ')
                """, in: run.folder)
            let numbers = measured.split(separator: " ").compactMap { Int($0) }
            XCTAssertEqual(numbers.count, 6, "\(width): \(measured)")
            guard numbers.count == 6 else { continue }
            XCTAssertLessThanOrEqual(numbers[0], numbers[1], "\(width): the page is wider than the window")
            XCTAssertLessThanOrEqual(numbers[2], numbers[1], "\(width): the source block ends beyond the window")
            XCTAssertEqual(numbers[3], 0, "\(width): the source block scrolls sideways (its scrollbar is below the last line)")
            XCTAssertGreaterThan(numbers[4], 1, "\(width): line \(long) does not wrap")
            XCTAssertEqual(numbers[5], 0, "\(width): the line number is not level with the line")
        }
    }

    /// The assertion failing three times on one line: three issues, its source shown once.
    func testTheSameFailingLineShowsItsSourceOnce() throws {
        let run = try fixtureRun()
        let page = try Chromium.load(run.output.appendingPathComponent("tests.html"), in: run.folder)
        page.assertClean()
        XCTAssertEqual(try page.text("count(//*[contains(@class,'ts-snippet')][@data-line='14'])"), "1")
        XCTAssertTrue(page.dom.components(separatedBy: "value 3 is not zero").count > 1, "the third failure is still listed")
        XCTAssertEqual(page.dom.components(separatedBy: "LoopFilterTests.swift:14").count - 1, 3, "each failure names its line")
    }
}
