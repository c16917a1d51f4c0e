import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution

/// Function names as reports show them, from the toolchain's libswiftDemangle; and mangled names,
/// with one warning, when it cannot be used. Expected names are `swift-demangle`'s output.
final class DemanglingTests: XCTestCase {
    func toolchainDemangler() throws -> SwiftDemangler {
        SwiftDemangler(library: try XCTUnwrap(try Toolchain.locate().demangler))
    }

    func testNamesAreShownAsSwiftDemanglePrintsThem() throws {
        let long = "$s4main2000" + String(repeating: "a", count: 2000) + "yyF"
        let names = ["Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ",                 // a file-local name: its symbol demangled
                     "$s6Shapes7largestyxSgSayxGAA5ShapeRzlFSbx_xtXEfU_",         // a closure: no return type
                     "$s6Shapes4RectV4areaSdvg",                                  // an accessor: no return type
                     "$s4main1fyyxAA1PRzSi1TRtzlF",                               // a generic signature with requirements
                     "main", "", "$sGarbage", "_Z3fooi",                          // not Swift, or not demangled: as they are
                     long]                                                         // longer than the stack buffer
        let session = try toolchainDemangler().session()
        let indices = names.map { session.add($0) }
        let demangled = session.finish()
        let display = zip(names, indices).map { demangled.displayName(at: $1, mangled: $0) }
        XCTAssertEqual(Array(display.prefix(8)), ["static Calc.add(_:_:) -> Int", "closure #1 in largest<A>(_:)", "Rect.area.getter",
                                                  "f<A>(_:) -> ()", "main", "", "$sGarbage", "_Z3fooi"])
        XCTAssertEqual(display.last, String(repeating: "a", count: 2000) + "() -> ()", "the long name, whole")
        XCTAssertNil(session.fallbackWarning)
    }

    /// Names added in bulk (as the native engine adds them) get the indices and
    /// display names they get one at a time, before and after names added singly; a name repeated is
    /// demangled once and shown the same.
    func testNamesAddedInBulkAreTheNamesAddedOneAtATime() throws {
        let names = ["Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ", "$s6Shapes4RectV4areaSdvg", "$s6Shapes4CalcV3addyS2i_SitFZ", "main"]
        let demangler = try toolchainDemangler()
        let single = demangler.session()
        let singleIndices = names.map { single.add($0) }
        let mixed = demangler.session()
        let first = mixed.add(names[0])
        let bulk = mixed.add(count: 2) { range, body in for k in range { body(names[1 + k]) } }
        let last = mixed.add(names[3])
        XCTAssertEqual([first, bulk, bulk + 1, last], singleIndices)
        let (a, b) = (single.finish(), mixed.finish())
        let shown = names.indices.map { b.displayName(at: singleIndices[$0], mangled: names[$0]) }
        XCTAssertEqual(shown, names.indices.map { a.displayName(at: singleIndices[$0], mangled: names[$0]) })
        XCTAssertEqual(shown, ["static Calc.add(_:_:) -> Int", "Rect.area.getter", "static Calc.add(_:_:) -> Int", "main"])
    }

    /// Without the library the names stay mangled and one warning says why and what to do: no
    /// toolchain, a toolchain without the library, a library file that cannot be loaded.
    func testWithoutTheLibraryNamesStayMangledWithOneWarning() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-broken-toolchain-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("lib"), withIntermediateDirectories: true)
        let broken = root.appendingPathComponent("lib/libswiftDemangle.so")
        try Data("not a shared library".utf8).write(to: broken)
        let missing = root.appendingPathComponent("lib/missing/libswiftDemangle.so")
        let cases: [(URL?, String)] = [
            (nil, "no Swift toolchain was found to demangle them (its lib/libswiftDemangle)"),
            (missing, "\(missing.path) does not exist"),
            (broken, "\(broken.path) could not be loaded"),
        ]
        for (library, why) in cases {
            let session = SwiftDemangler(library: library).session()
            XCTAssertNil(session.fallbackWarning, "no names, nothing to say")
            let index = session.add("Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ")
            let names = session.finish()
            XCTAssertEqual(names.displayName(at: index, mangled: "Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ"), "Calc.swift:$s6Shapes4CalcV3addyS2i_SitFZ")
            XCTAssertEqual(session.fallbackWarning?.message,
                           "function names are shown mangled: \(why); put the toolchain's swift on PATH or set TESTSCOPE_SWIFT to it")
        }
    }
}
