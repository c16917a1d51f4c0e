import Foundation
@testable import TestscopeProfileData
import XCTest

/// The stale-profile check without binary IDs (`CoverageMappingRecords.counterDisagreements`) on the
/// Mach-O fixtures and their ELF twins (sample-profiles/macho): `swift.stale.profraw` is the profile of
/// another build of `src/x.swift` (one more `if` in `classify`), the function names and hashes the same.
final class MismatchedProfileTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-profiles/macho")
    static let swiftBinaries = ["swift.elf", "swift.arm64.exe", "swift.arm64.o", "swift.x86_64.o", "libswift.x86_64.dylib",
                                "swift.arm64.bundle"]

    func path(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }
    func counters(_ profile: String) -> ProfileCounters { ProfileCounters.merging(files: [path(profile)]).counters }

    /// The functions whose counter counts differ between the two real profiles (the builds' difference).
    func changedFunctions() throws -> [(nameRef: UInt64, original: Int, stale: Int)] {
        let original = try RawProfileReader.read(path: path("swift.profraw")).flatMap(\.records)
        let stale = Dictionary(uniqueKeysWithValues: try RawProfileReader.read(path: path("swift.stale.profraw")).flatMap(\.records)
            .map { ($0.nameRef, $0.counters.count) })
        return original.compactMap { record in
            stale[record.nameRef].flatMap { $0 == record.counters.count ? nil : (record.nameRef, record.counters.count, $0) }
        }
    }

    /// Every Swift fixture reads its own counter counts (`__llvm_prf_data`): its twin's profile agrees
    /// with them, the other build's profile disagrees on `classify` alone, with the two profiles' counts.
    func testEachBinaryCountsItsFunctionsCountersAndTheOtherBuildsProfileDisagrees() throws {
        let changed = try changedFunctions()
        XCTAssertEqual(changed.count, 1)
        // Raw profiles of binaries without a build ID carry no binary ID (as Darwin's never do).
        XCTAssertEqual(counters("swift.stale.profraw").binaryIDs, [])
        let (original, stale) = (try XCTUnwrap(changed.first?.original), try XCTUnwrap(changed.first?.stale))
        for binary in Self.swiftBinaries {
            let mapping = try CoverageMappingReader.records(binaryAt: path(binary))
            let counts = try XCTUnwrap(CoverageMappingReader.counterCounts(binaryAt: path(binary)), binary)
            XCTAssertEqual(Set(counts.map(\.nameRef)), Set(try RawProfileReader.read(path: path("swift.profraw")).flatMap(\.records).map(\.nameRef)), binary)
            XCTAssertEqual(mapping.counterDisagreements(with: counters("swift.profraw"), binaryCounts: counts), [], binary)
            XCTAssertEqual(mapping.counterDisagreements(with: counters("swift.profdata"), binaryCounts: counts), [], binary)
            let found = mapping.counterDisagreements(with: counters("swift.stale.profraw"), binaryCounts: counts)
            XCTAssertEqual(found.map(\.profile), [stale], binary)
            XCTAssertEqual(found.map(\.binary), [original], binary)
            XCTAssertTrue(found.first?.name.hasSuffix("classifyyS2i_S2itF") ?? false, "\(found)")
        }
        for binary in ["c.elf", "c.arm64.exe", "c.x86_64.o", "libc.x86_64.dylib", "c.arm64.bundle"] {
            let mapping = try CoverageMappingReader.records(binaryAt: path(binary))
            let counts = CoverageMappingReader.counterCounts(binaryAt: path(binary))
            XCTAssertNotNil(counts, binary)
            XCTAssertEqual(mapping.counterDisagreements(with: counters("c.profraw"), binaryCounts: counts), [], binary)
        }
    }

    /// Without `__llvm_prf_data`, the mapping says how many counters a function uses at least: a
    /// profile with fewer is another build's; one with more (the stale profile) cannot be told.
    func testWithoutProfileDataTheMappingTellsAProfileWithTooFewCounters() throws {
        let (nameRef, original, _) = try XCTUnwrap(try changedFunctions().first)
        var builder = ProfileCountersBuilder()
        for record in try RawProfileReader.read(path: path("swift.profraw")).flatMap(\.records) {
            builder.add(nameRef: record.nameRef, funcHash: record.funcHash,
                        counters: record.nameRef == nameRef ? Array(record.counters.dropLast()) : record.counters, source: "short")
        }
        for binary in ["swift.elf", "swift.arm64.exe"] {
            let mapping = try CoverageMappingReader.records(binaryAt: path(binary))
            let counts = CoverageMappingReader.counterCounts(binaryAt: path(binary))
            XCTAssertEqual(mapping.counterDisagreements(with: builder.counters, binaryCounts: counts).map(\.profile), [original - 1], binary)
            XCTAssertEqual(mapping.counterDisagreements(with: counters("swift.profraw"), binaryCounts: nil), [], binary)
            let short = mapping.counterDisagreements(with: builder.counters, binaryCounts: nil)
            XCTAssertEqual(short.map(\.profile), [original - 1], binary)
            XCTAssertEqual(short.map(\.binary), [original], binary)
            XCTAssertEqual(mapping.counterDisagreements(with: counters("swift.stale.profraw"), binaryCounts: nil), [], binary)
        }
    }

    /// A damaged `__llvm_prf_data` (a count that does not fit `__llvm_prf_cnts`, or random bytes)
    /// gives no counts (the check falls back to the mapping's), never a trap, and the mapping still reads.
    func testDamagedProfileDataGivesNoCountsNeverATrap() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for binary in ["swift.elf", "swift.arm64.exe"] {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(binary))))
            let data = try XCTUnwrap(try ELFFile(path: path(binary)).section(named: "__llvm_prf_data"), binary)
            XCTAssertNotNil(CoverageMappingReader.counterCounts(binaryAt: path(binary)), binary)
            var bytes = original
            bytes[Int(data.offset) + 48..<Int(data.offset) + 52] = [0xff, 0xff, 0xff, 0xff]  // the first NumCounters
            let damaged = folder.appendingPathComponent(binary)
            try Data(bytes).write(to: damaged)
            XCTAssertNil(CoverageMappingReader.counterCounts(binaryAt: damaged.path), binary)
            XCTAssertNoThrow(try CoverageMappingReader.records(binaryAt: damaged.path), binary)
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<200 {
                var mutated = original
                for _ in 0..<8 {
                    mutated[Int(data.offset) + Int.random(in: 0..<Int(data.size), using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                try Data(mutated).write(to: damaged)
                _ = CoverageMappingReader.counterCounts(binaryAt: damaged.path)
            }
        }
    }
}
