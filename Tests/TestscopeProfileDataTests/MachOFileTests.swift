import Foundation
@testable import TestscopeProfileData
import TestscopeTestSupport
import XCTest

/// The Mach-O container reader on the fixtures of sample-profiles/macho (made by its record-macho.sh):
/// the same coverage sections and mapping as the ELF twin's, the slice choice of universal files, and
/// mutated files (truncated, sizes and offsets past the end, hostile universal headers): each one
/// clear `ProfileDataError` (or `.unsupported`, the fallback), never a trap.
final class MachOFileTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-profiles/macho")
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("macho-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func fixture(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(name)))) }

    /// `bytes` as a file in the test's folder.
    func file(_ bytes: [UInt8], _ name: String = "mutated") throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// The concatenated coverage sections, as the mapping reader takes them.
    func coverageSections(_ path: String, architecture: String? = nil) throws -> [[UInt8]] {
        let binary = try ELFFile(path: path, architecture: architecture)
        return try ["__llvm_covmap", "__llvm_covfun", "__llvm_prf_names"].map { name in
            try binary.bytes(of: binary.sections.filter { $0.name == name }, aligningEachTo: 8)
        }
    }

    /// A function's name, counters and regions, comparable across binaries.
    func summary(_ mapping: CoverageMapping) -> [String] {
        mapping.functions.map { "\($0.pgoName ?? "?") \($0.funcHash) \($0.expressions) \($0.regions)" }
    }

    static let cMachO = ["c.arm64.o", "c.x86_64.o", "c.arm64.exe", "c.x86_64.exe", "libc.x86_64.dylib", "c.arm64.bundle", "c.universal.exe"]
    static let swiftMachO = ["swift.arm64.o", "swift.x86_64.o", "swift.arm64.exe", "libswift.x86_64.dylib",
                             "swift.arm64.bundle"]

    func testEveryMachOFormHasTheELFTwinsCoverageSectionsAndMapping() throws {
        for (twin, files) in [("c.elf", Self.cMachO), ("swift.elf", Self.swiftMachO)] {
            let twinSections = try coverageSections(fixture(twin))
            let twinMapping = summary(try CoverageMappingReader.read(binaryAt: fixture(twin)))
            XCTAssertFalse(twinSections.contains { $0.isEmpty })
            XCTAssertGreaterThan(twinMapping.count, 2)
            for name in files {
                XCTAssertEqual(try coverageSections(fixture(name)), twinSections, name)
                let mapping = try CoverageMappingReader.read(binaryAt: fixture(name))
                XCTAssertEqual(summary(mapping), twinMapping, name)
                let binary = try ELFFile(path: fixture(name))
                XCTAssertEqual(binary.architecture, name.contains("x86_64") ? "x86_64" : name.contains("universal") ? MachOFile.hostArchitecture : "arm64", name)
                // LC_UUID: linked images have one (ld64.lld writes it), objects none.
                XCTAssertEqual(mapping.buildID?.count, name.hasSuffix(".o") ? nil : 32, name)
                XCTAssertEqual(mapping.buildID, try binary.buildID(), name)
            }
        }
    }

    /// A universal file of `slices` (each a thin Mach-O file), each at a multiple of 2^14, optionally 64-bit (0xcafebabf).
    func universal(_ slices: [(cpuType: UInt32, cpuSubtype: UInt32, bytes: [UInt8])], fat64: Bool = false) -> [UInt8] {
        func big32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
        func big64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
        let page = 1 << 14
        var header = big32(fat64 ? 0xcafebabf : 0xcafebabe) + big32(UInt32(slices.count))
        var body: [UInt8] = []
        for slice in slices {
            let offset = page + body.count
            header += big32(slice.cpuType) + big32(slice.cpuSubtype)
            header += fat64 ? big64(UInt64(offset)) + big64(UInt64(slice.bytes.count)) : big32(UInt32(offset)) + big32(UInt32(slice.bytes.count))
            header += big32(14) + (fat64 ? big32(0) : [])
            body += slice.bytes + [UInt8](repeating: 0, count: (page - slice.bytes.count % page) % page)
        }
        return header + [UInt8](repeating: 0, count: page - header.count) + body
    }

    func testTheSliceIsTheOneAskedForElseTheHostsElseTheOnlyOne() throws {
        let arm64 = try bytes("c.arm64.exe"), x86 = try bytes("c.x86_64.exe")
        let lipo = fixture("c.universal.exe")
        XCTAssertEqual(try ELFFile(path: lipo, architecture: "arm64").architecture, "arm64")
        XCTAssertEqual(try ELFFile(path: lipo, architecture: "x86_64").architecture, "x86_64")
        XCTAssertEqual(try coverageSections(lipo, architecture: "arm64"), try coverageSections(fixture("c.arm64.exe")))
        XCTAssertEqual(try ELFFile(path: lipo, architecture: "arm64").buildID(), try ELFFile(path: fixture("c.arm64.exe")).buildID())
        XCTAssertEqual(try ELFFile(path: lipo, architecture: "x86_64").buildID(), try ELFFile(path: fixture("c.x86_64.exe")).buildID())
        XCTAssertEqual(MachOFile.chosenSlice(path: lipo, requested: nil), MachOFile.hostArchitecture)
        XCTAssertNil(MachOFile.chosenSlice(path: fixture("c.arm64.exe"), requested: nil))
        // The 64-bit form (0xcafebabf) reads the same as lipo's file.
        let slices = [(UInt32(0x0100_000c), UInt32(0), arm64), (UInt32(0x0100_0007), UInt32(3), x86)]
        let fat64 = try file(universal(slices, fat64: true), "fat64")
        for arch in ["arm64", "x86_64"] {
            XCTAssertEqual(try coverageSections(fat64, architecture: arch), try coverageSections(lipo, architecture: arch))
            XCTAssertEqual(try ELFFile(path: fat64, architecture: arch).architecture, arch)
        }
        // Neither slice this machine's: one error naming both; one slice: that one.
        let foreign = try file(universal([(0x0100_000c, 2, arm64), (0x0100_0007, 8, x86)]), "foreign")
        XCTAssertThrowsError(try ELFFile(path: foreign)) { error in
            XCTAssertEqual(error as? ProfileDataError, .architecture("a universal binary of arm64e, x86_64h, none of them this machine's; pass --arch with one of these"))
        }
        XCTAssertEqual(try ELFFile(path: foreign, architecture: "x86_64h").architecture, "x86_64")  // the slice's own header says x86_64
        let single = try file(universal([(0x0100_000c, 2, arm64)]), "single")
        XCTAssertEqual(try coverageSections(single), try coverageSections(fixture("c.arm64.exe")))
        // An architecture the file lacks: an error naming what it has (thin: its own; ELF ignores --arch, as llvm-cov does).
        XCTAssertThrowsError(try ELFFile(path: lipo, architecture: "i386")) { error in
            XCTAssertEqual(error as? ProfileDataError, .architecture("a universal binary without i386 (it has x86_64, arm64); pass --arch with one of these"))
        }
        XCTAssertThrowsError(try ELFFile(path: fixture("c.arm64.exe"), architecture: "x86_64")) { error in
            XCTAssertEqual(error as? ProfileDataError, .architecture("an arm64 binary, not x86_64; pass --arch arm64 or no --arch"))
        }
        XCTAssertNoThrow(try ELFFile(path: fixture("c.elf"), architecture: "arm64"))
    }

    func testOtherWidthsByteOrdersAndFileTypesFallBackToLLVMCov() throws {
        let exe = try bytes("c.arm64.exe")
        var cases: [(String, [UInt8])] = []
        var narrow = exe; narrow[0] = 0xce; cases.append(("32-bit", narrow))
        var big = exe; big[0...3] = [0xfe, 0xed, 0xfa, 0xcf]; cases.append(("big-endian", big))
        var dsym = exe; dsym[12] = 0x0a; cases.append(("MH_DSYM", dsym))
        cases.append(("32-bit slice", universal([(7, 3, narrow)])))
        for (what, bytes) in cases {
            XCTAssertThrowsError(try CoverageMappingReader.records(binaryAt: try file(bytes)), what) { error in
                XCTAssertTrue((error as? ProfileDataError)?.isUnsupported == true, "\(what): \(error)")
            }
        }
    }

    /// Offsets of a thin Mach-O file's load commands, and of its section_64 entries' offset fields.
    func layout(_ bytes: [UInt8]) -> (commands: [Int], sectionOffsets: [Int]) {
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var commands: [Int] = [], sections: [Int] = []
        var at = 32
        for _ in 0..<u32(16) {
            commands.append(at)
            if u32(at) == 0x19 { sections += (0..<u32(at + 64)).map { at + 72 + $0 * 80 + 48 } }
            at += u32(at + 4)
        }
        return (commands, sections)
    }

    func put32(_ value: UInt32, at offset: Int, in bytes: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        var copy = bytes
        let v = bigEndian ? value.bigEndian : value.littleEndian
        withUnsafeBytes(of: v) { copy[offset..<offset + 4] = ArraySlice($0) }
        return copy
    }

    /// One clear error (or success where the damage misses what coverage reads), never a trap.
    func assertTyped(_ bytes: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try CoverageMappingReader.records(binaryAt: try self.file(bytes))
        } catch let error as ProfileDataError {
            XCTAssertFalse("\(error)".isEmpty, what, file: file, line: line)
        } catch {
            XCTFail("\(what): untyped \(error)", file: file, line: line)
        }
    }

    func testDamagedThinFilesGiveOneClearError() throws {
        for name in ["c.arm64.o", "c.x86_64.exe", "swift.arm64.exe"] {
            let original = try bytes(name)
            let (commands, sectionOffsets) = layout(original)
            XCTAssertGreaterThan(commands.count, 2, name)
            // Cut inside each load command, and just before each section's end.
            for (index, start) in commands.enumerated() {
                for cut in [start, start + 4, start + 8, start + 40] where cut < original.count {
                    let cutShort = Array(original.prefix(cut))
                    XCTAssertThrowsError(try CoverageMappingReader.records(binaryAt: try file(cutShort)), "\(name) cut at command \(index)") { error in
                        guard case ProfileDataError.truncated = error else { return XCTFail("\(name) cut at \(cut): \(error)") }
                    }
                }
                for size: UInt32 in [0, 4, 0xffff_fff8] { assertTyped(put32(size, at: start + 4, in: original), "\(name) cmdsize \(size) of command \(index)") }
                assertTyped(put32(0xffff_ffff, at: start + 64, in: original), "\(name) nsects of command \(index)")
            }
            for offsetField in sectionOffsets {
                let damaged = put32(0xffff_fff0, at: offsetField, in: original)
                assertTyped(damaged, "\(name) section offset at \(offsetField)")
            }
            for (field, what) in [(16, "ncmds"), (20, "sizeofcmds")] {
                XCTAssertThrowsError(try CoverageMappingReader.records(binaryAt: try file(put32(0xffff_ffff, at: field, in: original))), what) { error in
                    XCTAssertFalse((error as? ProfileDataError)?.isUnsupported ?? true, "\(name) \(what): \(error)")
                }
            }
        }
        // The covmap section's offset past the end: the error says which section.
        let object = try bytes("c.arm64.o")
        let covmapOffset = try XCTUnwrap(layout(object).sectionOffsets.first { field in
            String(decoding: object[(field - 48)..<(field - 32)].prefix { $0 != 0 }, as: UTF8.self) == "__llvm_covmap"
        })
        XCTAssertThrowsError(try ELFFile(path: try file(put32(UInt32(object.count), at: covmapOffset, in: object)))) { error in
            guard case ProfileDataError.truncated(let why) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("__llvm_covmap"), why)
        }
    }

    func testHostileUniversalHeadersGiveOneClearError() throws {
        let lipo = try bytes("c.universal.exe")
        let cases: [(String, [UInt8], (ProfileDataError) -> Bool)] = [
            ("nfat_arch 0xffffffff", put32(0xffff_ffff, at: 4, in: lipo, bigEndian: true), { if case .corrupt = $0 { return true }; return false }),
            ("nfat_arch 0", put32(0, at: 4, in: lipo, bigEndian: true), { if case .corrupt = $0 { return true }; return false }),
            ("slice past the end", put32(UInt32(lipo.count), at: 8 + 8, in: lipo, bigEndian: true), { if case .truncated = $0 { return true }; return false }),
            ("slice size past the end", put32(0xffff_0000, at: 8 + 12, in: lipo, bigEndian: true), { if case .truncated = $0 { return true }; return false }),
            ("slice inside the header", put32(0, at: 8 + 8, in: lipo, bigEndian: true), { if case .corrupt = $0 { return true }; return false }),
            ("overlapping slices", put32(0x1000, at: 28 + 8, in: lipo, bigEndian: true), { if case .corrupt = $0 { return true }; return false }),
            ("header cut short", Array(lipo.prefix(30)), { if case .truncated = $0 { return true }; return false }),
        ]
        for (what, bytes, expected) in cases {
            XCTAssertThrowsError(try ELFFile(path: try file(bytes)), what) { error in
                guard let error = error as? ProfileDataError else { return XCTFail("\(what): untyped \(error)") }
                XCTAssertTrue(expected(error), "\(what): \(error)")
            }
        }
        // Unknown CPU types: named by number; the host's slice is still read.
        let unknown = put32(0x1234_5678, at: 8, in: put32(0x0765_4321, at: 28, in: lipo, bigEndian: true), bigEndian: true)
        XCTAssertThrowsError(try ELFFile(path: try file(unknown))) { error in
            XCTAssertEqual(error as? ProfileDataError,
                           .architecture("a universal binary of cputype 0x12345678, cputype 0x7654321, none of them this machine's; pass --arch with one of these"))
        }
        if MachOFile.hostArchitecture == "x86_64" {
            XCTAssertNoThrow(try CoverageMappingReader.records(binaryAt: try file(put32(0x1234_5678, at: 28, in: lipo, bigEndian: true))))
        }
        // A slice that is not a Mach-O file.
        XCTAssertNoThrow(try ELFFile(path: try file(lipo), architecture: "arm64"))
        var notMachO = lipo; notMachO[0x8000] = 0  // lipo put the arm64 slice at 0x8000
        XCTAssertThrowsError(try ELFFile(path: try file(notMachO), architecture: "arm64")) { error in
            guard case ProfileDataError.corrupt = error else { return XCTFail("\(error)") }
        }
    }

    /// Seeded random damage (bit flips, overwrites, truncations) of a thin and a universal file.
    func testRandomMutationsNeverTrap() throws {
        let corpus = try ["c.arm64.o", "c.universal.exe", "swift.arm64.exe"].map { (name: $0, bytes: try bytes($0)) }
        let path = folder.appendingPathComponent("random").path
        Mutator.run(corpus, iterations: Mutator.iterations(default: 500)) { _, bytes in
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return false }
            do { _ = try CoverageMappingReader.read(binaryAt: path) } catch is ProfileDataError { } catch { return false }
            return true
        }
    }
}
