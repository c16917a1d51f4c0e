import Foundation
import XCTest

/// scripts/link-order.txt, the release binary's code layout (scripts/build-release), against the code as
/// it is now: a function it names that no longer exists is skipped by the linker without a word, so a
/// list gone stale would quietly give back the memory it saves (docs/performance.md, "Start-up and code
/// pages"). This test binary holds the same modules built for debugging, where every function that is
/// not a specialization, thunk or outlined copy has the symbol it has in the release build.
final class LinkOrderTests: XCTestCase {
    func testLinkOrderStillNamesThePackagesFunctions() throws {
        let file = TestscopeProcess.repoRoot.appendingPathComponent("scripts/link-order.txt")
        let names = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        XCTAssertGreaterThan(names.count, 1000, "scripts/link-order.txt lists too few functions")
        XCTAssertEqual(names.filter { $0.contains(" ") || $0.contains("\t") || $0.isEmpty }, [], "one symbol a line")
        // The package's own plain functions: `$s<length>Testscope<Module>…`, no specialization (Tg5, Tf…),
        // partial application (TA), merged function (Tm) or outlined value operation (WO…).
        let own = names.filter {
            $0.range(of: #"^\$s\d+Testscope[A-Za-z]+"#, options: .regularExpression) != nil
                && $0.range(of: #"(Tg5|Tgq5|Tq5|Tf\d|TA|Tm|WO[a-z]|Oo)"#, options: .regularExpression) == nil
        }
        XCTAssertGreaterThan(own.count, 500, "scripts/link-order.txt names few of the package's functions")
        let executable = try XCTUnwrap(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let table = try XCTUnwrap(try TestscopeProcess.output(of: ["nm", "--defined-only", executable]), "nm could not read \(executable)")
        let symbols = Set(table.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        let missing = own.filter { !symbols.contains($0) }
        // 98.7 % were found when the list was recorded (1,020 of 1,033).
        XCTAssertLessThanOrEqual(Double(missing.count), 0.2 * Double(own.count),
                                 "\(missing.count) of the \(own.count) functions of scripts/link-order.txt are gone (e.g. \(missing.prefix(3))): run scripts/record-link-order")
    }
}
