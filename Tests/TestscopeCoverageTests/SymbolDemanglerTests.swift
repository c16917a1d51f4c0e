import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
import TestscopeTestSupport

/// Testscope's own demangler gives the toolchain library's text wherever it answers: the full name
/// of functions, initializers and accessors, the simplified name of closures. Checked on the
/// recorded corpus (6,000 symbols of five mirror packages' test binaries and the synthetic package,
/// `sample-profiles/record-symbols.sh`) and on every function name of the recorded samples.
final class SymbolDemanglerTests: XCTestCase {
    func library() throws -> DemanglerLibrary {
        try XCTUnwrap(DemanglerLibrary.beside(tool: try XCTUnwrap(try Toolchain.locate().swiftDemangle), environment: [:]))
    }

    /// What the own demangler answered for `symbols` (nil where it left a symbol to the library),
    /// each answer compared with the library's.
    func compare(_ symbols: [String], library: DemanglerLibrary, file: StaticString = #filePath, line: UInt = #line) -> [String?] {
        var own = SymbolDemangler()
        var failures = 0
        return symbols.map { symbol -> String? in
            var bytes = Array(symbol.utf8)
            let answer: String?
            let expected: String?
            switch bytes.withUnsafeMutableBufferPointer({ own.demangle(UnsafeBufferPointer($0)) }) {
            case nil: return nil
            case .closure(let name):
                answer = name
                expected = library.simplified(symbol)
            case .full:
                answer = String(decoding: own.out.buffer, as: UTF8.self)
                expected = library.fullName(symbol)
            }
            if answer != expected {
                failures += 1
                if failures <= 20 { XCTFail("\(symbol): own \(answer ?? "nil"), library \(expected ?? "nil")", file: file, line: line) }
            }
            return answer
        }
    }

    func testTheOwnDemanglerGivesTheLibrarysTextOnTheRecordedCorpus() throws {
        let library = try library()
        let corpus = try String(contentsOf: RecordedSamples.file("Demangling", "symbols.txt"), encoding: .utf8)
        var symbols = corpus.split(separator: "\n").map(String.init)
        // Real symbols of the same binaries with shapes the random sample missed: async throws, a
        // dictionary, an optional dictionary, two generic parameters, a long initializer.
        symbols += ["$s9Durations4waityySdYaKF", "$s14ArgumentParser20UniqueNamesValidatorV5ErrorV09duplicateD0SDySSSiGvg",
                    "$s22ArgumentParserToolInfo0aD2V0V20allValueDescriptionsSDyS2SGSgvg",
                    "$s19HashTreeCollections0B10DictionaryVyACyxq_GSDyxq_GcfC",
                    "$s22ArgumentParserToolInfo0aD2V0V4kind13shouldDisplay12sectionTitle10isOptional0K9Repeating15parsingStrategy5names13preferredName05valueR012defaultValue03allU7Strings0vU12Descriptions14completionKind8abstract10discussionA2C0zE0O_SbSSSgS2bAC07ParsingoE0OSayAC0rdE0VGSgAYSgA2USaySSGSgSDyS2SGSgAC010CompletionzE0OSgA2UtcfC"]
        // More corpora (one symbol a line) when asked, e.g. every symbol of a package's test binary.
        for extra in (ProcessInfo.processInfo.environment["TESTSCOPE_DEMANGLE_CORPUS"] ?? "").split(separator: ":") {
            symbols += try String(contentsOfFile: String(extra), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        XCTAssertGreaterThanOrEqual(symbols.count, 6000)
        let answers = compare(symbols, library: library)
        if ProcessInfo.processInfo.environment["TESTSCOPE_DEMANGLE_SHOW"] != nil {
            for (symbol, answer) in zip(symbols, answers) { print("answer \(symbol) => \(answer ?? "-")") }
        }
        let answered = answers.compactMap { $0 }
        // Most of the synthetic package's functions and a fifth or more of the mirror packages' symbols
        // (the rest: metadata, witnesses, thunks, extensions, specializations) are in the subset.
        XCTAssertGreaterThan(answered.count, 1700, "answered \(answered.count) of \(symbols.count)")
        XCTAssertLessThan(answered.count, symbols.count, "some shapes are left to the library")
        // Each shape of the subset was answered at least once (so none silently falls back).
        for shape in ["closure #", "implicit closure #", " where ", " async throws -> ", " throws -> ", ".getter : ",
                      ".setter : ", "static ", ".init(", "__allocating_init(", "inout ", "[Swift.String : ", "]?", "<A, B"]
            where !answered.contains(where: { $0.contains(shape) }) {
            XCTFail("no answered symbol has \(shape)")
        }
        XCTAssertFalse(answered.contains { $0.contains("(extension in") }, "extensions are left to the library")
    }

    func testTheOwnDemanglerAgreesOnTheRecordedSamplesNames() throws {
        let names = try DemanglerLibraryTests.recordedNames().map(SwiftDemangler.symbol(in:))
        let answered = compare(names, library: try library()).compactMap { $0 }
        XCTAssertGreaterThan(answered.count, 300, "of \(names.count) names")
    }

    /// Seeded mutations of the corpus (bytes flipped and overwritten, truncations, mangling operators
    /// inserted, numbers replaced, slices moved): never a crash, and wherever the own demangler still
    /// answers, the library's text.
    func testMutatedSymbolsAreAnsweredAsTheLibraryDoesOrLeftToIt() throws {
        let library = try library()
        var own = SymbolDemangler()
        // The symbols it answers: their mutants stay in the subset more often.
        let corpus = try String(contentsOf: RecordedSamples.file("Demangling", "symbols.txt"), encoding: .utf8)
            .split(separator: "\n").map { Array($0.utf8) }
            .filter { symbol in symbol.withUnsafeBufferPointer { own.demangle($0) } != nil }
        var mutator = Mutator(seed: Mutator.seed, tokens: ["A", "AA", "Ab", "A_", "A27_", "0a", "0aB", "0A", "Sg", "Si", "S2i", "SS",
                                                            "SaySiG", "y", "_", "fU_", "fu0_", "Rzl", "R_r0_l", "x", "q_", "qd__", "G",
                                                            "t", "K", "Ya", "XE", "z", "vg", "vs", "fC", "fc", "Z", "F", "c", "V", "O", "C",
                                                            "99999999999", "2048", "00"])
        var answered = 0, compared = 0
        for i in 0..<Mutator.iterations(default: 100_000) {
            let bytes = mutator.mutate(corpus[i % corpus.count])
            var copy = bytes
            let answer: String?
            switch copy.withUnsafeMutableBufferPointer({ own.demangle(UnsafeBufferPointer($0)) }) {
            case nil: continue
            case .closure(let name): answer = name
            case .full: answer = String(decoding: own.out.buffer, as: UTF8.self)
            }
            answered += 1
            // The library reads a `String`: only valid UTF-8 reaches it unchanged.
            guard let symbol = String(validating: bytes, as: UTF8.self) else { continue }
            compared += 1
            let expected = if case .closure = own.demangle(bytes.withUnsafeBufferPointer { $0 }) { library.simplified(symbol) } else { library.fullName(symbol) }
            if answer != expected { XCTFail("mutation \(i) (seed \(Mutator.seed)): \(symbol): own \(answer ?? "nil"), library \(expected ?? "nil")") }
        }
        XCTAssertGreaterThan(compared, 3000, "mutants still in the subset (answered \(answered))")
    }

    /// For a display name the own demangler leaves the entity's parameter types and `where` clause out
    /// (`demangle(_:forDisplay:)`). The name, module and return type read off that text are the
    /// library's: on the corpus, on the recorded samples' names and on seeded mutants of the corpus.
    func testDisplayNamesFromTheShortTextAreTheLibrarys() throws {
        let library = try library()
        var own = SymbolDemangler()
        let corpus = try String(contentsOf: RecordedSamples.file("Demangling", "symbols.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        // Functions returning functions and a tuple with a function: the return type stays whole.
        let returningFunctions = ["$s4main1fS2icyF", "$s4main1f1xS2icSi_tF", "$s4main1fyS2icSaySiGF", "$s4main1f_1ySS_S2ictSi_SStF"]
        for symbol in returningFunctions {
            var bytes = Array(symbol.utf8)
            XCTAssertNotNil(bytes.withUnsafeMutableBufferPointer { own.demangle(UnsafeBufferPointer($0), forDisplay: true) }, symbol)
        }
        var symbols = corpus + returningFunctions + (try DemanglerLibraryTests.recordedNames().map(SwiftDemangler.symbol(in:)))
        var mutator = Mutator(seed: Mutator.seed, tokens: ["A", "Ab", "0a", "Sg", "Si", "SS", "SaySiG", "y", "_", "fU_", "Rzl", "x", "q_",
                                                            "G", "t", "K", "Ya", "XE", "z", "vg", "fC", "Z", "F", "V", "s4main"])
        for i in 0..<Mutator.iterations(default: 20_000) {
            if let symbol = String(validating: mutator.mutate(Array(corpus[i % corpus.count].utf8)), as: UTF8.self) { symbols.append(symbol) }
        }
        var answered = 0, answeredInFull = 0, failures = 0
        for symbol in symbols {
            var bytes = Array(symbol.utf8)
            if bytes.withUnsafeMutableBufferPointer({ own.demangle(UnsafeBufferPointer($0)) }) != nil { answeredInFull += 1 }
            if bytes.withUnsafeMutableBufferPointer({ own.demangle(UnsafeBufferPointer($0), forDisplay: true) }) != nil { answered += 1 }
            let got = library.demangle(symbol, own: &own)
            let expected = library.demangledByLibrary(symbol)
            if got.name != expected.name || got.module != expected.module || got.returnType != expected.returnType {
                failures += 1
                if failures <= 20 {
                    XCTFail("\(symbol): own \(got.name) | \(got.module ?? "-") | \(got.returnType ?? "-"); "
                        + "library \(expected.name) | \(expected.module ?? "-") | \(expected.returnType ?? "-")")
                }
            }
        }
        // The short text answers whatever the full one does (types it cannot print are not printed).
        XCTAssertGreaterThanOrEqual(answered, answeredInFull)
        XCTAssertGreaterThan(answered, 2_000, "of \(symbols.count)")
    }

    func testSymbolsOutsideTheSubsetOrMalformedAreLeftToTheLibrary() throws {
        var own = SymbolDemangler()
        // Not Swift, truncated, a word substitution with no words, a substitution past the table,
        // an identifier longer than the symbol, punycode, an operator, a protocol witness, and a symbol
        // too deep for the fixed buffers.
        let deep = "$s4main1fyy" + String(repeating: "Sa", count: 600) + "yF"
        for symbol in ["main", "_Z3fooi", "$s", "$s4main", "$s0a", "$sAB", "$s9main", "$s004main", "$s4main1poiyS2i_SitF",
                       "$s4main1PPAAE1fyyF", "$s4mainAAVSHAASH4hash4intoys6HasherVz_tFTW", deep] {
            var bytes = Array(symbol.utf8)
            XCTAssertNil(bytes.withUnsafeMutableBufferPointer { own.demangle(UnsafeBufferPointer($0)) }, symbol)
        }
        // And the next symbol is read as if nothing had happened.
        var bytes = Array("$s4main3fooyS2iF".utf8)
        guard case .full = bytes.withUnsafeMutableBufferPointer({ own.demangle(UnsafeBufferPointer($0)) }) else { return XCTFail("not answered") }
        XCTAssertEqual(String(decoding: own.out.buffer, as: UTF8.self), try library().fullName("$s4main3fooyS2iF"))
    }
}
