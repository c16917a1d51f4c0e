import Foundation
@testable import TestscopeCoverage
import TestscopeTestSupport
import XCTest

/// Seeded mutations of real llvm-cov exports (the recorded Shapes and CFamily `coverage.json`) through
/// the export reader and the whole model (per-line rules, functions, roll-ups): each must give a
/// report or a `CoverageError` — never trap, never hang.
final class ExportMutationTests: XCTestCase {
    /// An export in memory, read like a file.
    struct ExportBytes: CoverageRecordSource {
        var bytes: [UInt8]
        var name: String { "mutated.json" }
        func read(includeFile: @escaping (String) -> Bool, onFile: @escaping (ExportFile) throws -> Void,
                  onFunction: @escaping (ExportFunction) throws -> Void) throws {
            _ = try LLVMCovExportReader(includeFile: includeFile, onFile: onFile, onFunction: onFunction).read(bytes: bytes, name: name)
        }
    }

    /// JSON a hostile export would hold: numbers at the edges, structure characters, literals.
    static let tokens = Mutator.edgeNumbers + ["[", "]", "{", "}", ",", "null", "true", "\"\\u0000\"", "[1,1,1,true,true,false]",
                                               "[3,62,1,true,true,false],[1,1,1,true,true,false]"]

    func testSeededMutationsOfExportsNeverCrash() throws {
        let corpus = try ["Shapes", "CFamily"].map { sample in
            (name: "\(sample)/coverage.json", bytes: [UInt8](try Data(contentsOf: RecordedSamples.file(sample, "coverage.json"))))
        }
        var reports = 0, refused = 0
        // 300 per file in CI (a few seconds); TESTSCOPE_MUTATIONS=N for a long run.
        let (inputs, seconds) = Mutator.run(corpus, iterations: Mutator.iterations(default: 300), tokens: Self.tokens) { _, bytes in
            // Every file under / counts, so every record is decoded and built.
            let options = CoverageBuildOptions(packageRoot: URL(fileURLWithPath: "/"), layout: .conventional(root: URL(fileURLWithPath: "/")),
                                               filter: SourceFilter(root: "/"))
            do {
                _ = try CoverageBuilder(options: options).build(sources: [ExportBytes(bytes: bytes)])
                reports += 1
            } catch is CoverageError {
                refused += 1
            } catch {
                return false
            }
            return true
        }
        print("export mutations: \(reports) reports, \(refused) refused")
        XCTAssertGreaterThan(refused, 0, "no mutation was refused: the mutations do not reach the validation")
        XCTAssertGreaterThan(reports, 0, "every mutation was refused: the corpus is not read")
        XCTAssertLessThan(seconds, 60 * Double(inputs) / 600)
    }
}
