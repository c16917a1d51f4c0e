import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeKit
import TestscopeProfileData
import TestscopeReports
import XCTest

/// `report` in-process on the real coverage build of Shapes (`ShapesBuild`, made once per run): from
/// SwiftPM's build folder (`--build-path`) and from a profile with its binary (`--profile`/`--binary`),
/// each giving the numbers of the report of llvm-cov's export of the same profiles; profiles of an earlier
/// build left in the codecov folder are left out.
final class ReportOfRealBuildTests: XCTestCase {
    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("kit-real-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    /// A report of `request`'s inputs into `folder` with `formats`: its status and its coverage.json's totals.
    func report(_ build: ShapesBuild, _ folder: String, _ formats: [ReportFormat],
                _ inputs: (inout ReportRequest) -> Void) throws -> (status: Outcome.Status, totals: [String: [String: Any]]) {
        let folder = output.appendingPathComponent(folder)
        var request = ReportRequest(packageRoot: URL(fileURLWithPath: build.root), settings: ReportSettings(formats: formats, output: folder))
        inputs(&request)
        let outcome = try pipeline.report(request)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("coverage.json"))) as? [String: Any]
        return (outcome.status, try XCTUnwrap(json?["totals"] as? [String: [String: Any]]))
    }

    func testReportFromBuildPathAndFromProfileAndBinary() throws {
        let build = try ShapesBuild.get()
        let fromExport = try report(build, "export", [.json]) { $0.exports = [URL(fileURLWithPath: build.export)] }
        XCTAssertEqual(fromExport.status, .success, console.diagnosticsText)

        // --build-path reads what a coverage build and its test run leave in .build (SwiftPM's codecov folder).
        let fromBuild = try report(build, "build", [.json]) { $0.buildPath = URL(fileURLWithPath: build.root).appendingPathComponent(".build") }
        XCTAssertEqual(fromBuild.status, .success, console.diagnosticsText)
        // It says which profiles it read: those of the newest test binary (issue #11).
        XCTAssertTrue(console.diagnosticsText.contains(" profile(s) of ShapesPackageTests.xctest: "), console.diagnosticsText)
        XCTAssertEqual(fromBuild.totals["lines"]?["covered"] as? Int, fromExport.totals["lines"]?["covered"] as? Int)

        let fromProfile = try report(build, "profile", [.json, .text]) {
            $0.profiles = [URL(fileURLWithPath: build.merged)]
            $0.binaries = [URL(fileURLWithPath: build.binary)]
        }
        XCTAssertEqual(fromProfile.status, .success, console.diagnosticsText)
        XCTAssertEqual(fromProfile.totals["lines"]?["total"] as? Int, fromExport.totals["lines"]?["total"] as? Int)
        XCTAssertNotNil(fromExport.totals["lines"]?["total"] as? Int)
    }

    /// SwiftPM's codecov folder holding a raw profile of an earlier build of the test binary (as a build folder
    /// shared between branches has them after a source change): `--build-path` reads only the newest binary's
    /// profiles, says which, and counts as a report from those profiles alone. The earlier build's profile is
    /// one of this build's with another binary ID (what tells the builds' profiles apart), so the package is
    /// built once: the folder is SwiftPM's layout, the binary linked in, the profiles copied.
    func testBuildPathReadsOnlyTheNewestBinarysProfilesAndSaysWhich() throws {
        let build = try ShapesBuild.get()
        let files = FileManager.default
        let debug = output.appendingPathComponent("build/debug"), codecov = debug.appendingPathComponent("codecov")
        try files.createDirectory(at: codecov, withIntermediateDirectories: true)
        try files.createSymbolicLink(at: debug.appendingPathComponent("ShapesPackageTests.xctest"), withDestinationURL: URL(fileURLWithPath: build.binary))
        let newest = build.profraws.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted()
        for path in build.profraws { try files.copyItem(atPath: path, toPath: codecov.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent).path) }
        let buildID = try XCTUnwrap(try ELFFile(path: build.binary).buildID())
        let idBytes = stride(from: 0, to: buildID.count, by: 2).map { UInt8(buildID.dropFirst($0).prefix(2), radix: 16)! }
        var earlier = [UInt8](try Data(contentsOf: URL(fileURLWithPath: build.profraws[0])))
        let at = try XCTUnwrap((0...(earlier.count - idBytes.count)).first { earlier[$0..<($0 + idBytes.count)].elementsEqual(idBytes) }, "no binary ID in the profile")
        earlier[at + idBytes.count - 1] ^= 0xFF
        try Data(earlier).write(to: codecov.appendingPathComponent("earlier.profraw"))
        XCTAssertNotEqual(try RawProfileReader.read(path: codecov.appendingPathComponent("earlier.profraw").path).first?.binaryIDs, [buildID])

        let fromBuild = try report(build, "from-build", [.json]) { $0.buildPath = self.output.appendingPathComponent("build") }
        XCTAssertEqual(fromBuild.status, .success, console.diagnosticsText)
        XCTAssertTrue(console.diagnosticsText.contains("testscope: reading \(newest.count) profile(s) of ShapesPackageTests.xctest: "
            + newest.joined(separator: ", ") + " (1 written by earlier builds left out)"), console.diagnosticsText)
        let fromProfiles = try report(build, "from-profiles", [.json]) {
            $0.binaries = [URL(fileURLWithPath: build.binary)]
            $0.profiles = newest.map { codecov.appendingPathComponent($0) }
        }
        XCTAssertEqual(fromProfiles.status, .success, console.diagnosticsText)
        // (Read together, the earlier build's profile would have been refused as another build's: status 65.)
        func counts(_ totals: [String: [String: Any]]) throws -> [Int] {
            try ["lines", "functions", "regions"].flatMap { kind in
                try ["covered", "total"].map { try XCTUnwrap(totals[kind]?[$0] as? Int, "\(kind).\($0)") }
            }
        }
        XCTAssertEqual(try counts(fromBuild.totals), try counts(fromProfiles.totals))
    }
}
