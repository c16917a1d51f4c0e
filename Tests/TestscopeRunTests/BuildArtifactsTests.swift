import Foundation
import XCTest
@testable import TestscopeRun

/// The one locator of build artifacts: the test binary rule and profiles newer than a date.
final class BuildArtifactsTests: XCTestCase {
    func testTheTestBinaryAndTheProfilesOfABinFolder() throws {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        XCTAssertNil(BuildArtifacts.testBinary(in: bin))
        for name in ["Tool", "OtherPackageTests.xctest", "MyPackageTests.xctest", "old.profraw", "new.profraw", "all.profdata"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: bin.appendingPathComponent(name).path, contents: Data()))
        }
        let past = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: bin.appendingPathComponent("OtherPackageTests.xctest").path)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: bin.appendingPathComponent("old.profraw").path)
        XCTAssertEqual(BuildArtifacts.testBinary(in: bin)?.lastPathComponent, "MyPackageTests.xctest", "the newest bundle")
        let profiles = BuildArtifacts.profiles(in: bin, since: Date(timeIntervalSinceNow: -60))
        XCTAssertEqual(profiles.raw.map(\.lastPathComponent), ["new.profraw"])
        XCTAssertEqual(profiles.merged.map(\.lastPathComponent), ["all.profdata"])
        XCTAssertEqual(BuildArtifacts.profiles(in: bin).raw.count, 2)
    }

    /// The bin folder is read from SwiftPM's `<scratch>/<configuration>` link without starting SwiftPM,
    /// only when the arguments name the scratch folder and no other triple or SDK.
    func testTheBinFolderIsTheConfigurationLinkWhenThere() throws {
        XCTAssertEqual(BuildArtifacts.configurationLink(["--scratch-path", "/s"])?.path, "/s/debug")
        XCTAssertEqual(BuildArtifacts.configurationLink(["--scratch-path", "/s", "-c", "release"])?.path, "/s/release")
        XCTAssertEqual(BuildArtifacts.configurationLink(["--configuration=release", "--scratch-path", "/s"])?.path, "/s/release")
        XCTAssertNil(BuildArtifacts.configurationLink(["--scratch-path", "/s", "--configuration", "release"]))
        XCTAssertNil(BuildArtifacts.configurationLink(["-c", "release"]), "no scratch folder named")
        XCTAssertNil(BuildArtifacts.configurationLink(["--scratch-path", "/s", "--triple", "wasm32-unknown-wasi"]))

        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID().uuidString)")
        let bin = scratch.appendingPathComponent("x86_64-unknown-linux-gnu/debug")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createSymbolicLink(atPath: scratch.appendingPathComponent("debug").path,
                                                   withDestinationPath: "x86_64-unknown-linux-gnu/debug")
        // A swift that does not exist: the link must be enough.
        let found = try BuildArtifacts.binPath(swift: URL(fileURLWithPath: "/nonexistent/swift"),
                                               buildArguments: ["--scratch-path", scratch.path])
        XCTAssertEqual(found.standardizedFileURL.path, bin.standardizedFileURL.path)
    }
}
