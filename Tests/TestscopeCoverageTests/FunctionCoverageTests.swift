import XCTest
@testable import TestscopeCoverage
import TestscopeExecution

/// Functions: demangled names, closures under their parent, counts from the export's records.
final class FunctionCoverageTests: XCTestCase {
    static let cache = Locked<[String: CoverageModel]>([:])

    func report(_ sample: String) throws -> CoverageModel {
        if let cached = Self.cache.withLock({ $0[sample] }) { return cached }
        let root = RecordedSamples.packageRoot(sample)
        let toolchain = try Toolchain.locate()
        let options = CoverageBuildOptions(
            packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
            pathEquivalences: [PathEquivalence(from: try RecordedSamples.recordedRoot(sample), to: root.path)],
            demangler: SwiftDemangler(library: toolchain.demangler))
        let report = try CoverageBuilder(options: options).build(exports: [RecordedSamples.file(sample, "coverage.json")])
        Self.cache.withLock { $0[sample] = report }
        return report
    }

    func file(_ report: CoverageModel, _ suffix: String) throws -> FileCoverage {
        try XCTUnwrap(report.files.first { $0.relativePath.hasSuffix(suffix) }, suffix)
    }

    func testDemangledNamesWithReturnTypes() throws {
        let shape = try file(try report("Shapes"), "Shape.swift")
        let names = shape.functions.map(\.name)
        XCTAssertTrue(names.contains("validated(_:) -> Rect"), "\(names)")
        XCTAssertTrue(names.contains("totalArea(_:onlyBig:) -> Double"), "\(names)")
        XCTAssertTrue(names.contains("largest<A>(_:) -> A?"), "\(names)")
        XCTAssertTrue(names.contains("Rect.area.getter"), "\(names)")
        XCTAssertFalse(names.contains { $0.hasPrefix("$s") }, "\(names)")
    }

    func testClosuresAreGroupedUnderTheirFunction() throws {
        let shape = try file(try report("Shapes"), "Shape.swift")
        let total = try XCTUnwrap(shape.functions.first { $0.name.hasPrefix("totalArea") })
        let closureNames = total.closures.map(\.name)
        XCTAssertEqual(closureNames.count, 4, "\(closureNames)")
        XCTAssertTrue(closureNames.contains("closure #1 in totalArea(_:onlyBig:)"))
        XCTAssertTrue(closureNames.contains("implicit closure #1 in closure #2 in totalArea(_:onlyBig:)"))
        XCTAssertTrue(shape.functions.allSatisfy { !SwiftDemangler.isClosure($0.name) })
        // Every closure lies inside its parent.
        for function in shape.functions {
            for closure in function.closures {
                XCTAssertTrue(function.line <= closure.line && closure.line <= function.endLine, closure.name)
            }
        }
    }

    func testCountsComeFromTheExportRecords() throws {
        let reference = try RecordedSamples.exportFunctions("Shapes")
        let byName = Dictionary(reference.map { ($0["name"] as! String, ($0["count"] as! NSNumber).uint64Value) }, uniquingKeysWith: { a, _ in a })
        let report = try report("Shapes")
        var checked = 0
        for file in report.files {
            for function in file.functions {
                XCTAssertEqual(function.count, byName[function.mangledName], function.name)
                for closure in function.closures { XCTAssertEqual(closure.count, byName[closure.mangledName]); checked += 1 }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 10)
    }

    func testUnusedFunctionAndNeverRunFile() throws {
        let report = try report("Shapes")
        let shape = try file(report, "Shape.swift")
        let unused = try XCTUnwrap(shape.functions.first { $0.name.hasPrefix("unusedPerimeter") })
        XCTAssertEqual(unused.count, 0)
        XCTAssertEqual(unused.lines.covered, 0)
        XCTAssertGreaterThan(unused.lines.total, 0)
        let legacy = try file(report, "Legacy.swift")
        XCTAssertEqual(legacy.summary.lines.covered, 0)
        XCTAssertEqual(legacy.summary.functions.covered, 0)
        XCTAssertGreaterThan(legacy.summary.functions.total, 0)
    }

    func testThrowingGuardIsAPartialLine() throws {
        let shape = try file(try report("Shapes"), "Shape.swift")
        let source = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: shape.path)))
        let lineNumber = try XCTUnwrap((1...source.lineCount).first { source.line($0).contains("guard rect.width >= 0 else { throw") })
        let line = try XCTUnwrap(shape.lines.first { $0.line == lineNumber })
        XCTAssertTrue(line.isPartial)
        XCTAssertGreaterThan(line.count, 0)
        let text = source.line(lineNumber)
        let braceColumn = UInt32(text.distance(from: text.startIndex, to: text.range(of: "{ throw")!.lowerBound) + 1)
        XCTAssertEqual(line.uncoveredSpans.first?.start, braceColumn)
        XCTAssertEqual(line.uncoveredSpans.first?.count, 0)
        // Fully covered lines are not partial.
        XCTAssertTrue(shape.lines.filter { source.line(Int($0.line)).contains("return rect") }.allSatisfy { !$0.isPartial })
    }

    func testExclusionMarkersLeaveTheTotals() throws {
        let describe = try file(try report("Shapes"), "Describe.swift")
        let source = try XCTUnwrap(SourceText.read(URL(fileURLWithPath: describe.path)))
        let fatal = try XCTUnwrap((1...source.lineCount).first { source.line($0).contains("fatalError(\"unknown shape\")") })
        XCTAssertTrue(describe.excludedLines.contains(UInt32(fatal)))
        XCTAssertFalse(describe.lines.contains { $0.line == UInt32(fatal) })
        XCTAssertFalse(describe.functions.contains { $0.name.contains("debugDump") })
        XCTAssertEqual(describe.summary.lines.total, describe.lines.count)
    }

    func testDefaultFilterKeepsOnlyOwnSources() throws {
        for sample in RecordedSamples.names {
            let report = try report(sample)
            XCTAssertFalse(report.files.isEmpty)
            for file in report.files {
                XCTAssertTrue(file.relativePath.hasPrefix("Sources/"), file.relativePath)
            }
            let functionFiles = Set(report.files.flatMap { f in f.functions.map { _ in f.path } })
            XCTAssertTrue(functionFiles.isSubset(of: Set(report.files.map(\.path))))
        }
    }

    func testRollUpsByTargetAndDirectory() throws {
        let report = try report("Inventory")
        XCTAssertEqual(Set(report.targets.map(\.name)), ["InventoryCore", "InventoryReport"])
        for target in report.targets {
            let files = report.files.filter { $0.target == target.name }
            XCTAssertEqual(target.summary, files.reduce(CoverageSummary()) { $0 + $1.summary })
        }
        let sources = try XCTUnwrap(report.directories.first { $0.name == "Sources" })
        XCTAssertEqual(sources.summary, report.totals)
        XCTAssertTrue(report.directories.contains { $0.name == "Sources/InventoryCore/Models" })
    }

    /// The directories found from consecutive paths are every path's directories: the path before
    /// each `/` (but a leading one), with the files under it summed, whatever the order of the files.
    func testDirectoryRollUpIsEveryPrefixBeforeASlash() {
        let paths = ["Sources/A/x.swift", "Sources/A/y.swift", "Sources/AB/z.swift", "Sources/A/B/w.swift", "Sources/A/v.swift",
                     "/abs/dir/f.swift", "/abs/g.swift", "/root.swift", "top.swift", "a//b/c.swift", "a/b/c.swift",
                     "Tests/T/t.swift", "Sources/A/x.swift", "Sources/ü/é.swift", "Sources/A"]
        let files = paths.enumerated().map { i, path in
            var summary = CoverageSummary()
            summary.lines = CoverageRatio(covered: i, total: 10 * i + 1)
            summary.functions = CoverageRatio(covered: 1, total: i + 2)
            return FileCoverage(path: path, relativePath: path, target: nil, lines: LineTable(), excludedLines: [], functions: [],
                                summary: summary, sourceAvailable: true)
        }
        // Expected: for each name that is some path's prefix ending before a `/` at a position above 0.
        var expected: [String: (files: Int, summary: CoverageSummary)] = [:]
        for file in files {
            let bytes = Array(file.relativePath.utf8)
            for end in bytes.indices where end > 0 && bytes[end] == UInt8(ascii: "/") {
                let name = String(decoding: bytes[..<end], as: UTF8.self)
                expected[name, default: (0, CoverageSummary())].files += 1
                expected[name]!.summary += file.summary
            }
        }
        let groups = RollUp.directories(of: files.map(\.summarized))
        XCTAssertEqual(groups.map(\.name), expected.keys.sorted())
        for group in groups {
            XCTAssertEqual(group.files, expected[group.name]?.files, group.name)
            XCTAssertEqual(group.summary, expected[group.name]?.summary, group.name)
        }
        XCTAssertTrue(groups.contains { $0.name == "a/" }, "an empty component is a directory, as the split kept it")
        XCTAssertFalse(groups.contains { $0.name == "" })
    }

    func testLineTotalIsThePerLineViewNotLLVMsSummary() throws {
        // llvm-cov's summary counts lines inside closures once per function; ours counts each line once.
        let report = try report("Shapes")
        for file in report.files {
            XCTAssertEqual(file.summary.lines.total, file.lines.count)
        }
    }
}
