import Foundation
import TestscopeCoverage

/// The package's process-wide state and the lines of its sources that write and read it, from the
/// tokens alone (`SourceTokens`; no type checker): globals, statics (`Outer.Inner.name`), the stored
/// properties of singletons (`Registry.shared.names`), `UserDefaults` keys, environment variables and
/// files (named by the path expression's text). `SharedStateSearch` intersects the sites with the lines
/// each test of an order ran.
package struct StateIndex: Sendable, Equatable {
    /// One item and its sites: lines by package-relative file path (the declaration's own line is neither).
    package struct Entry: Sendable, Equatable {
        package var name: String
        package var kind: SharedStateItem.Kind
        package var resetStatement: String?
        package var writes: [String: Set<Int>] = [:]
        package var reads: [String: Set<Int>] = [:]
    }

    /// By name, in first-declared order.
    package private(set) var entries: [Entry] = []
    private var position: [String: Int] = [:]

    package func entry(_ name: String) -> Entry? { position[name].map { entries[$0] } }

    /// Indexes the Swift files at `paths` (relative to `root`: they name the items' sites); an unreadable one is left out.
    package static func read(root: URL, paths: [String]) -> StateIndex {
        let files = paths.filter { $0.hasSuffix(".swift") }.sorted().compactMap { path -> (path: String, text: String)? in
            (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)).map { (path, $0) }
        }
        return build(files: files)
    }

    /// Declarations of every file first (a use in one file names a declaration in another), then the uses.
    package static func build(files: [(path: String, text: String)]) -> StateIndex {
        let scans = files.map { StateScan(path: $0.path, text: $0.text) }
        var declarations = StateDeclarations()
        for scan in scans { scan.declare(into: &declarations) }
        declarations.indexNames()
        var index = StateIndex()
        for variable in declarations.items() {
            index.add(Entry(name: variable.name, kind: variable.kind, resetStatement: variable.reset))
        }
        for scan in scans {
            for use in scan.uses(of: declarations) {
                index.add(Entry(name: use.name, kind: use.kind, resetStatement: use.reset))
                let i = index.position[use.name]!
                if use.write { index.entries[i].writes[scan.path, default: []].insert(use.line) } else { index.entries[i].reads[scan.path, default: []].insert(use.line) }
            }
        }
        // A declaration's line (`static var beta = false`) is its lazy initialization, neither a write nor a read.
        for variable in declarations.items() {
            guard let i = index.position[variable.name] else { continue }
            index.entries[i].writes[variable.file]?.remove(variable.line)
            index.entries[i].reads[variable.file]?.remove(variable.line)
        }
        return index
    }

    private mutating func add(_ entry: Entry) {
        guard position[entry.name] == nil else { return }
        position[entry.name] = entries.count
        entries.append(entry)
    }
}

/// A declared variable: a global, a static, or a singleton's stored property.
struct DeclaredVariable: Sendable {
    var name: String
    var kind: SharedStateItem.Kind
    var reset: String?
    var file: String
    var line: Int
}

/// What the declarations of every file say: the variables, and each class's stored properties (the state
/// of its singletons).
struct StateDeclarations {
    /// `retryLimit` → itself; `FeatureFlags.beta`: by its type's path (`FeatureFlags`) and name.
    var globals: [String: DeclaredVariable] = [:]
    var statics: [String: [String: DeclaredVariable]] = [:]
    /// Class name → its stored instance properties (name, initializer, private).
    var members: [String: [(name: String, initializer: String?, isPrivate: Bool, file: String, line: Int)]] = [:]
    /// A static or global whose initializer makes a class of the package: `PluginRegistry.shared` → `PluginRegistry`.
    var singletons: [(holder: String, owner: String?, className: String)] = []
    var classes: Set<String> = []
    /// Every property a type declares, computed ones too (a bare `path` in `ExportLock` is `ExportLock.path`).
    var typeMembers: [String: Set<String>] = [:]
    /// The statics by their own name (`beta` → `FeatureFlags`'s), and the singletons' classes' properties by
    /// theirs: what a word of a file is looked up in.
    var staticsByName: [String: [(owner: String, variable: DeclaredVariable)]] = [:]
    var singletonsByMember: [String: [(holder: String, className: String, isPrivate: Bool, initializer: String?)]] = [:]

    mutating func indexNames() {
        for (owner, statics) in statics.sorted(by: { $0.key < $1.key }) {
            for (name, variable) in statics { staticsByName[name, default: []].append((owner, variable)) }
        }
        for singleton in classSingletons {
            for member in members[singleton.className] ?? [] {
                singletonsByMember[member.name, default: []].append((singleton.holder, singleton.className, member.isPrivate, member.initializer))
            }
        }
    }

    /// The singletons whose class the package declares.
    var classSingletons: [(holder: String, owner: String?, className: String)] { singletons.filter { classes.contains($0.className) } }

    /// Every variable, singleton members named through their holder (`PluginRegistry.shared.names`).
    func items() -> [DeclaredVariable] {
        var result = globals.values.sorted { $0.name < $1.name } + statics.values.flatMap(\.values).sorted { $0.name < $1.name }
        for singleton in classSingletons {
            for member in members[singleton.className] ?? [] {
                let name = singleton.holder + "." + member.name
                let reset = member.isPrivate ? nil : member.initializer.map { name + " = " + $0 }
                result.append(DeclaredVariable(name: name, kind: .singleton, reset: reset, file: member.file, line: member.line))
            }
        }
        return result
    }
}

/// A use found in a file: the item, whether the line writes it, and where.
struct StateUse {
    var name: String
    var kind: SharedStateItem.Kind
    var reset: String?
    var write: Bool
    var line: Int
}
