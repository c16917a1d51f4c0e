import Foundation
@testable import TestscopeProfileData
import TestscopeTestSupport
import XCTest

/// Seeded mutations (bit flips, byte overwrites, truncations) of the real corpus files through
/// every reader: each must return a result or a typed `ProfileDataError` — never trap — quickly.
final class MutationTests: XCTestCase {
    /// 2,000 per corpus file in CI (about 6 s); `TESTSCOPE_MUTATIONS=N` for a longer fuzzing session,
    /// `TESTSCOPE_MUTATION_SEED=S` for other mutations.
    static let iterations = Mutator.iterations(default: 2_000)
    static let seed = Mutator.seed

    func corpus(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus/\(name)")))
    }

    /// Runs `body`, accepting success or a typed error; returns false on an untyped error.
    func typed(_ body: () throws -> Void) -> Bool {
        do { try body() } catch is ProfileDataError { } catch { return false }
        return true
    }

    /// Every byte-level reader over `bytes`, and the mapping reader with `bytes` in `file`'s role
    /// (`covmap`, `covfun` and `names` are the unmutated companions).
    func everyReader(_ bytes: [UInt8], file: String, covmap: [UInt8], covfun: [UInt8], names: [UInt8]) -> Bool {
        let byteReaders = typed { _ = try RawProfileReader.read(bytes: bytes) }
            && typed { _ = try IndexedProfileReader.read(bytes: bytes) }
            && typed { _ = try ProfileNames.decode(bytes) }
            && typed { _ = try MappingDecoder.decode(bytes, filenameCount: 4) }
            && typed { _ = try MappingDecoder.isDummy(bytes) }
        switch file.split(separator: ".").last {
        case "covmap": return byteReaders && typed { _ = try CoverageMappingReader.read(covmap: bytes, covfun: covfun, names: names) }
        case "covfun": return byteReaders && typed { _ = try CoverageMappingReader.read(covmap: covmap, covfun: bytes, names: names) }
        case "prf_names": return byteReaders && typed { _ = try CoverageMappingReader.read(covmap: covmap, covfun: covfun, names: bytes) }
        default: return byteReaders
        }
    }

    func testCorpusParsesAsExpected() throws {
        XCTAssertEqual(try RawProfileReader.read(bytes: try corpus("shapes-xctest.profraw")).count, 1)
        XCTAssertThrowsError(try RawProfileReader.read(bytes: try corpus("shapes-truncated.profraw"))) { error in
            guard case ProfileDataError.truncated = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(try IndexedProfileReader.read(bytes: try corpus("shapes.profdata")).records.isEmpty)
        let mapping = try CoverageMappingReader.read(covmap: try corpus("shapes.covmap"), covfun: try corpus("shapes.covfun"),
                                                     names: try corpus("shapes.prf_names"))
        XCTAssertEqual(mapping.functions.count, 87)
        XCTAssertTrue(mapping.functions.allSatisfy { $0.pgoName != nil })
    }

    /// The names section is not decoded into names any more, but still checked: garbage there is a
    /// corrupt profile, as it is for llvm-profdata.
    func testARawProfilesCorruptNamesSectionIsRefused() throws {
        var bytes = try corpus("shapes-xctest.profraw")
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        // Header fields: BinaryIdsSize, NumData, padding, NumCounters, padding, NumBitmapBytes, padding, NamesSize.
        let namesOffset = 128 + u64(16) + u64(24) * 64 + u64(32) + u64(40) * 8 + u64(48) + u64(56) + u64(64)
        let namesSize = u64(72)
        XCTAssertGreaterThan(namesSize, 4)
        XCTAssertNoThrow(try RawProfileReader.read(bytes: bytes))
        for i in namesOffset..<namesOffset + namesSize { bytes[i] = 0xff }
        XCTAssertThrowsError(try RawProfileReader.read(bytes: bytes)) { error in
            XCTAssertNotNil(error as? ProfileDataError, "\(error)")
        }
    }

    func testSeededMutationsNeverCrash() throws {
        let covmap = try corpus("shapes.covmap"), covfun = try corpus("shapes.covfun"), names = try corpus("shapes.prf_names")
        let files = ["shapes-xctest.profraw", "shapes-truncated.profraw", "shapes.profdata",
                     "shapes.covmap", "shapes.covfun", "shapes.prf_names"]
        let start = Date()
        for (fileIndex, file) in files.enumerated() {
            let original = try corpus(file)
            var mutator = Mutator(seed: Self.seed &+ UInt64(fileIndex))
            for iteration in 0..<Self.iterations {
                let mutated = mutator.mutate(original)
                let began = Date()
                XCTAssertTrue(everyReader(mutated, file: file, covmap: covmap, covfun: covfun, names: names),
                              "\(file) iteration \(iteration): untyped error")
                XCTAssertLessThan(Date().timeIntervalSince(began), 2, "\(file) iteration \(iteration) too slow")
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        print("\(files.count * Self.iterations) mutated inputs through every reader in \(String(format: "%.1f", elapsed)) s")
        XCTAssertLessThan(elapsed, 120 * Double(Self.iterations) / 2_000)
    }
}
