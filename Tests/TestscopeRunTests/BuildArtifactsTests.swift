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
}
