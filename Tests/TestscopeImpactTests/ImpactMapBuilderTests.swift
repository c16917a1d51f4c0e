import Foundation
import TestscopeCoverage
import TestscopeProfileData
@testable import TestscopeImpact
import XCTest

/// The map from mapped functions and per-test sets: the package's files only, expressions folded into
/// the function around them, cases of a test together, lost tests unusable; its JSON round trip.
final class ImpactMapBuilderTests: XCTestCase {
    let root = URL(fileURLWithPath: "/pkg")
    let source = "func f() {\n  check(a && b)\n}\n"

    func function(_ name: String, file: String, _ region: (UInt32, UInt32, UInt32, UInt32)) -> MappedFunction {
        MappedFunction(nameRef: 0, pgoName: name, funcHash: 0, filenames: [file], expressions: [],
                       regions: [MappingRegion(kind: .code, counter: .counter(0), fileID: 0, expandedFileID: 0,
                                               lineStart: region.0, columnStart: region.1, lineEnd: region.2, columnEnd: region.3)])
    }

    func testBuild() throws {
        let environment = ImpactEnvironment(toolchain: "t", configuration: "debug", buildArguments: [], manifestHash: "", resolvedHash: "")
        let builder = ImpactMapBuilder(packageRoot: root, commit: "c", tree: nil, dirtyFiles: [:], environment: environment) { _ in self.source }
        let mapped = [
            function("$s1M1fyyF", file: "/pkg/Sources/M/F.swift", (1, 10, 3, 2)),
            // `b` of `a && b`: an autoclosure, an expression inside f.
            function("$s1M1fyyFSbyKXEfu_", file: "/pkg/Sources/M/F.swift", (2, 14, 2, 15)),
            function("$s3Dep1gyyF", file: "/pkg/.build/checkouts/Dep/G.swift", (1, 1, 1, 2)),
            function("$s5Other1hyyF", file: "/elsewhere/H.swift", (1, 1, 1, 2)),
        ]
        let contexts = [PerTestCoverage.Context(id: ""), .init(id: "MTests.T/a()", testCase: 1), .init(id: "MTests.T/a()", testCase: 2),
                        .init(id: "MTests.T/lost")]
        let map = builder.build(mapped: mapped, contexts: contexts, entered: [[], [1], [2], [0]], lost: ["MTests.T/lost"], results: [
            .init(id: "MTests.T/a()", outcome: "passed", duration: 0.0014),
            .init(id: "MTests.T/a()", outcome: "failed", duration: 0.002),
            .init(id: "MTests.T/lost", outcome: "crashed", duration: nil),
            .init(id: "MTests.T/skipped", outcome: "skipped", duration: nil),
        ])
        XCTAssertEqual(map.files, ["Sources/M/F.swift"])
        XCTAssertEqual(map.functions.map(\.name), ["$s1M1fyyF"])
        XCTAssertEqual(map.tests.map(\.id), ["MTests.T/a()", "MTests.T/lost", "MTests.T/skipped"])
        XCTAssertFalse(map.tests[2].usable, "a skipped test ran nothing")
        XCTAssertEqual(map.tests[0].outcome, "failed")
        XCTAssertEqual(map.tests[0].duration, 0.003)
        XCTAssertEqual(map.tests[0].functionIndexes, [0], "the autoclosure's run is f's")
        XCTAssertFalse(map.tests[1].usable)
        XCTAssertEqual(try ImpactMap.decoded(try map.encoded()), map)
    }

    func testSharedBeginningsRoundTripAndRefuseNonsense() throws {
        let names = ["$s6Module4TypeV1ayyF", "$s6Module4TypeV1byyF", "é1", "é2é", "x"]
        let coded = ImpactMap.shareBeginnings(names)
        XCTAssertEqual(coded[1], "16~byyF")
        XCTAssertEqual(ImpactMap.expandBeginnings(coded), names)
        XCTAssertNil(ImpactMap.expandBeginnings(["99~x"]))
        XCTAssertNil(ImpactMap.expandBeginnings(["ab", "9~x"]))
    }
}
