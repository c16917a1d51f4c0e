import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution

/// The toolchain's demangler library in process gives the display names the `swift-demangle`
/// processes give, name for name, on every function name of the recorded samples.
final class DemanglerLibraryTests: XCTestCase {
    /// Every function name of the recorded exports, as the profiles name them.
    static func recordedNames() throws -> [String] {
        var names: [String] = []
        for sample in RecordedSamples.names {
            let data = try Data(contentsOf: RecordedSamples.file(sample, "coverage.json"))
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for export in try XCTUnwrap(json["data"] as? [[String: Any]]) {
                for function in export["functions"] as? [[String: Any]] ?? [] { names.append(try XCTUnwrap(function["name"] as? String)) }
            }
        }
        return names
    }

    func displayNames(_ names: [String], inProcess: Bool) throws -> [String] {
        let session = DemangleSession(tool: try XCTUnwrap(try Toolchain.locate().swiftDemangle), inProcess: inProcess)
        let indices = names.map { session.add($0) }
        let demangled = session.finish()
        return zip(names, indices).map { demangled.displayName(at: $1, mangled: $0) }
    }

    func testTheLibraryGivesWhatTheProcessesGive() throws {
        let tool = try XCTUnwrap(try Toolchain.locate().swiftDemangle)
        XCTAssertNotNil(DemanglerLibrary.beside(tool: tool, environment: [:]), "the toolchain beside \(tool.path) has libswiftDemangle")
        XCTAssertNil(DemanglerLibrary.beside(tool: tool, environment: ["TESTSCOPE_DEMANGLER": "process"]))
        var names = try Self.recordedNames()
        XCTAssertGreaterThan(names.count, 500, "the samples' functions")
        // Not mangled, not Swift, a file-local name, and one whose demangled form passes the stack buffer.
        names += ["main", "", "$sGarbage", "_Z3fooi", "Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ",
                  "$s4main" + "2000" + String(repeating: "a", count: 2000) + "yyF"]
        let inProcess = try displayNames(names, inProcess: true)
        let processes = try displayNames(names, inProcess: false)
        XCTAssertEqual(inProcess.count, names.count)
        for (i, name) in names.enumerated() where inProcess[i] != processes[i] {
            XCTFail("\(name): library \(inProcess[i]), swift-demangle \(processes[i])")
        }
        XCTAssertTrue(inProcess.contains("add(_:_:) -> Int") || inProcess.contains("static Calc.add(_:_:) -> Int"), "\(inProcess.suffix(6))")
        XCTAssertTrue(inProcess.last?.hasPrefix(String(repeating: "a", count: 2000)) ?? false, "the long name, whole")
    }

    /// Names handed over as bytes (as the native engine reads them from the names section) come back
    /// as the same names handed over as `String`s: plain, file-prefixed, not mangled, non-ASCII and
    /// not valid UTF-8 (which the `String` repairs), in process and through the processes.
    func testNamesAsBytesAreTheNamesAsStrings() throws {
        var names = Array(try Self.recordedNames().prefix(300)).map { Array($0.utf8) }
        names += [Array("Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ".utf8), Array("main".utf8), [],
                  Array("$s6Shapes4CalcV3addyS2i_SitFZ".utf8) + [0xFF, 0xC3], Array("Café.swift:$s6Shapes4CalcV3addyS2i_SitFZ".utf8),
                  [0x80] + Array("$s6Shapes4CalcV3addyS2i_SitFZ".utf8),
                  // An invalid byte inside an identifier (the library gets the repaired name either way).
                  Array("$s6Shapes4Ca".utf8) + [0xFF] + Array("cV3addyS2i_SitFZ".utf8)]
        let tool = try XCTUnwrap(try Toolchain.locate().swiftDemangle)
        for inProcess in [true, false] {
            let byBytes = DemangleSession(tool: tool, inProcess: inProcess)
            let byStrings = DemangleSession(tool: tool, inProcess: inProcess)
            let bytesIndices = names.map { name in name.withUnsafeBufferPointer { byBytes.add(bytes: $0) } }
            let stringIndices = names.map { byStrings.add(String(decoding: $0, as: UTF8.self)) }
            XCTAssertEqual(bytesIndices, stringIndices)
            let (a, b) = (byBytes.finish(), byStrings.finish())
            for (k, name) in names.enumerated() {
                let mangled = String(decoding: name, as: UTF8.self)
                XCTAssertEqual(a.displayName(at: bytesIndices[k], mangled: mangled), b.displayName(at: stringIndices[k], mangled: mangled),
                               "\(mangled) (in process: \(inProcess))")
            }
            XCTAssertEqual(a.displayName(at: bytesIndices[300], mangled: "Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ"), "static Calc.add(_:_:) -> Int")
        }
    }

    /// The in-process session demangles and keeps its names a chunk at a time: names on both sides
    /// of every chunk boundary come back as the `swift-demangle` processes give them, in order.
    func testNamesAcrossChunksAreThoseOfTheProcesses() throws {
        let recorded = try Self.recordedNames()
        var names: [String] = []
        while names.count < 2 * InProcessDemangling.chunkSize + 300 { names += recorded }
        let inProcess = try displayNames(names, inProcess: true)
        let processes = try displayNames(names, inProcess: false)
        XCTAssertEqual(inProcess.count, names.count)
        for i in [0, InProcessDemangling.chunkSize - 1, InProcessDemangling.chunkSize, 2 * InProcessDemangling.chunkSize, names.count - 1] {
            XCTAssertEqual(inProcess[i], processes[i], "name \(i): \(names[i])")
        }
        XCTAssertEqual(zip(inProcess, processes).filter { $0 != $1 }.count, 0, "names that differ from swift-demangle's")
        XCTAssertGreaterThan(zip(inProcess, names).filter { $0 != $1 }.count, names.count / 2, "the names were demangled")
    }

    /// Names added in bulk (`add(count:names:)`, read on the workers a chunk at a time) get the
    /// indices and display names they get one at a time: after names added singly (a chunk already
    /// begun), across chunk boundaries, with singles after, in process and through the processes.
    func testNamesAddedInBulkAreTheNamesAddedOneAtATime() throws {
        let recorded = try Self.recordedNames().map { Array($0.utf8) }
        var names: [[UInt8]] = [Array("Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ".utf8), [0xFF] + Array("$s4main1fyyF".utf8)]
        while names.count < 3 * InProcessDemangling.chunkSize + 100 { names += recorded }
        let (before, bulk) = (37, names.count - 37 - 5)
        let tool = try XCTUnwrap(try Toolchain.locate().swiftDemangle)
        for inProcess in [true, false] {
            let single = DemangleSession(tool: tool, inProcess: inProcess)
            let singleIndices = names.map { name in name.withUnsafeBufferPointer { single.add(bytes: $0) } }
            let mixed = DemangleSession(tool: tool, inProcess: inProcess)
            var mixedIndices = names[..<before].map { name in name.withUnsafeBufferPointer { mixed.add(bytes: $0) } }
            let all = names
            let first = mixed.add(count: bulk) { range, body in
                for k in range { all[before + k].withUnsafeBufferPointer { body($0) } }
            }
            mixedIndices += (0..<bulk).map { first + Int32($0) }
            mixedIndices += names[(before + bulk)...].map { name in name.withUnsafeBufferPointer { mixed.add(bytes: $0) } }
            XCTAssertEqual(mixedIndices, singleIndices)
            let (a, b) = (single.finish(), mixed.finish())
            var demangled = 0
            for (k, name) in names.enumerated() {
                let mangled = String(decoding: name, as: UTF8.self)
                let display = b.displayName(at: mixedIndices[k], mangled: mangled)
                XCTAssertEqual(display, a.displayName(at: singleIndices[k], mangled: mangled), "\(mangled) (in process: \(inProcess))")
                if display != mangled { demangled += 1 }
            }
            XCTAssertGreaterThan(demangled, names.count / 2, "the names were demangled")
            XCTAssertEqual(b.displayName(at: mixedIndices[0], mangled: "Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ"), "static Calc.add(_:_:) -> Int")
        }
    }

    /// The library is loaded at the first name the own demangler leaves to it: a toolchain whose
    /// library file cannot be loaded still gives the own demangler's names, and the others as they are
    /// (as `swift-demangle` prints a name it does not know), never a crash.
    func testALibraryThatCannotBeLoadedLeavesOnlyTheUnknownShapesMangled() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-broken-toolchain-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("lib"), withIntermediateDirectories: true)
        let tool = root.appendingPathComponent("bin/swift-demangle")
        try Data("#!/bin/sh\n".utf8).write(to: tool)
        try Data("not a shared library".utf8).write(to: root.appendingPathComponent("lib/libswiftDemangle.so"))
        let library = try XCTUnwrap(DemanglerLibrary.beside(tool: tool, environment: [:]), "the file is there: loaded when first needed")
        var own = SymbolDemangler()
        // A plain method: the own demangler's shape, no library call.
        XCTAssertEqual(library.demangle("$s6Shapes4CalcV3addyS2i_SitF", own: &own).name, "Calc.add(_:_:)")
        // A generic signature with a same-type requirement: outside the own demangler's subset.
        let generic = "$s4main1fyyxAA1PRzSi1TRtzlF"
        XCTAssertNil(Array(generic.utf8).withUnsafeBufferPointer { own.demangle($0) }, "left to the library")
        XCTAssertEqual(library.demangle(generic, own: &own).name, generic)
        XCTAssertNil(library.fullName(generic))
    }

    /// A plain function's simplified name read off its full name is the library's simplified name,
    /// on every recorded name of that shape (and names of other shapes are left to the library).
    func testSimplifiedNamesReadOffFullNamesAreTheLibrarys() throws {
        let library = try XCTUnwrap(DemanglerLibrary.beside(tool: try XCTUnwrap(try Toolchain.locate().swiftDemangle), environment: [:]))
        var derived = 0, left = 0
        for name in try Self.recordedNames() {
            let symbol = SwiftDemangler.symbol(in: name)
            guard var full = library.fullName(symbol) else { continue }
            if let simplified = full.withUTF8({ SimplifiedName.derived(fromFull: $0) }) {
                derived += 1
                XCTAssertEqual(simplified, library.simplified(symbol), full)
            } else {
                left += 1
            }
        }
        XCTAssertGreaterThan(derived, 100, "plain functions and accessors are read off the full name")
        XCTAssertGreaterThan(left, 100, "closures, generics and local contexts are left to the library")
        // Shapes that look plain but are not: a local type's method, an operator, a generic signature.
        for full in ["CodingKeys.init(intValue: Swift.Int) -> CodingKeys? in Local #1 in M.T.f() -> ()",
                     "static Swift.Int.+ infix(Swift.Int, Swift.Int) -> Swift.Int",
                     "M.f<each A>(repeat each A) -> ()", "M.f<A.B>(A) -> A", "(extension in M):Swift.Array.f() -> ()",
                     // Labels the library prints as they are (`Foo.f(π:)`), which are not ASCII identifiers.
                     "M.Foo.f(π: Swift.Double) -> ()", "M.Foo.g(Δx: Swift.Int, y: Swift.Int) -> ()",
                     "M.Foo.raw(`a b`: Swift.Int) -> ()", "M.dollar(a$: Swift.Int) -> ()"] {
            var text = full
            XCTAssertNil(text.withUTF8 { SimplifiedName.derived(fromFull: $0) }, full)
        }
        var labelled = "static M.T.f(_: Swift.Int, by: [Swift.String : (Swift.Int, b: Swift.Int)], (Swift.Int) -> ()) async throws -> M.T"
        XCTAssertEqual(labelled.withUTF8 { SimplifiedName.derived(fromFull: $0) }, "static T.f(_:by:_:)")
        var generic = "M.T.init<A, B where A: Swift.Sequence, B == (A) -> Swift.Int>(_: A, using: inout B) -> M.T<A>"
        XCTAssertEqual(generic.withUTF8 { SimplifiedName.derived(fromFull: $0) }, "T.init<A, B>(_:using:)")
    }
}
