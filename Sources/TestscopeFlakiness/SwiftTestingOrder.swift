import Foundation
import TestscopeTestResults

/// Swift Testing's own serial order, and the batches it allows. Run without parallelization, Swift
/// Testing sorts a suite's children by source location (file ID, line, column), recursively; so the
/// relative order of any subset of one module's tests is fixed. Each call of the ABI entry point
/// discovers every test again (its cost grows with the number of tests), so consecutive tests of an
/// order that are already in that serial order run in one call.
package enum SwiftTestingOrder {
    /// Ranks in the serial order (0 first), from the `test` records `--list-tests` writes to an event stream.
    package static func ranks(fromListStream text: String) -> [String: Int] {
        struct Location: Comparable {
            var fileID: String, line: Int, column: Int
            static func < (a: Location, b: Location) -> Bool {
                (a.fileID, a.line, a.column) < (b.fileID, b.line, b.column)
            }
        }
        var locations: [String: Location] = [:]
        var functions: [String] = []
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["kind"] as? String == "test", let payload = object["payload"] as? [String: Any],
                  let id = payload["id"] as? String, let source = payload["sourceLocation"] as? [String: Any],
                  let fileID = source["fileID"] as? String, let line = (source["line"] as? NSNumber)?.intValue,
                  let column = (source["column"] as? NSNumber)?.intValue else { continue }
            let specifier = SwiftTestingEventStream.split(id).specifier
            locations[specifier] = Location(fileID: fileID, line: line, column: column)
            if payload["kind"] as? String == "function" { functions.append(specifier) }
        }
        // A test's key: the locations of its suites, outermost first, then its own.
        var keys: [(module: String, key: [Location], id: String)] = []
        for id in functions {
            let module = id.firstIndex(of: ".").map { String(id[..<$0]) } ?? id
            var key: [Location] = []
            var complete = true
            let group = TestIdentity.group(of: id)
            if group != module {
                let parts = group.split(separator: "/").map(String.init)
                for depth in 1...parts.count {
                    let suite = parts.prefix(depth).joined(separator: "/")
                    guard let location = locations[suite] else { complete = false; break }
                    key.append(location)
                }
            }
            guard complete, let own = locations[id] else { continue }
            keys.append((module, key + [own], id))
        }
        // Modules have no location of their own: Swift Testing puts the one with the first test first.
        var moduleFirst: [String: [Location]] = [:]
        for entry in keys where moduleFirst[entry.module].map({ entry.key.lexicographicallyPrecedes($0) }) ?? true {
            moduleFirst[entry.module] = entry.key
        }
        let sorted = keys.sorted { a, b in
            if a.module != b.module { return moduleFirst[a.module]!.lexicographicallyPrecedes(moduleFirst[b.module]!) }
            return a.key.lexicographicallyPrecedes(b.key)
        }
        return Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($0.element.id, $0.offset) })
    }

    /// The lines of an order file for the generated entry point: one test per line, except that
    /// consecutive Swift Testing tests of one module in ascending serial order share a line
    /// (tab-separated) and run in one call.
    /// With `parallel` (the parallel mode: Swift Testing runs them at once, in no order), consecutive
    /// tests of one module share a line whatever their serial order.
    package static func batchedLines(_ order: [String], ranks: [String: Int], parallel: Bool = false) -> [String] {
        var lines: [String] = []
        var batch: [String] = []
        func flush() { if !batch.isEmpty { lines.append(batch.joined(separator: "\t")); batch = [] } }
        for id in order {
            guard let rank = ranks[id] else { flush(); lines.append(id); continue }
            if let last = batch.last, let lastRank = ranks[last], parallel || lastRank < rank, module(of: last) == module(of: id) {
                batch.append(id)
            } else {
                flush()
                batch = [id]
            }
        }
        flush()
        return lines
    }

    static func module(of id: String) -> Substring { id.prefix { $0 != "." } }
}
