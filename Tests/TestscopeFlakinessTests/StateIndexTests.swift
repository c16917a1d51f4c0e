import Foundation
import TestscopeFlakiness
import XCTest

/// The syntax index of `flaky`'s state search on small sources: each kind of state, writes told from reads.
final class StateIndexTests: XCTestCase {
    func index(_ files: [(String, String)]) -> StateIndex { StateIndex.build(files: files.map { (path: $0.0, text: $0.1) }) }

    func entry(_ index: StateIndex, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> StateIndex.Entry {
        try XCTUnwrap(index.entry(name), "no \(name) in \(index.entries.map(\.name))", file: file, line: line)
    }

    func testAGlobalWrittenThroughAFunctionAndReadBare() throws {
        let index = index([("Sources/A/Retry.swift", """
            nonisolated(unsafe) public var retryLimit = 3
            public func configureRetries(_ limit: Int) { retryLimit = limit }
            public func attempts() -> Int { retryLimit + 1 }
            func label(retryLimit: Int) -> String { "" }
            func grow() { retryLimit += 2; tweak(&retryLimit) }
            """)])
        let global = try entry(index, "retryLimit")
        XCTAssertEqual(global.kind, .global)
        XCTAssertEqual(global.resetStatement, "retryLimit = 3")
        XCTAssertEqual(global.writes, ["Sources/A/Retry.swift": [2, 5]], "assignment, compound assignment, inout; not the declaration")
        XCTAssertEqual(global.reads, ["Sources/A/Retry.swift": [3]], "a parameter label is not a use")
    }

    func testStaticsOfNestedTypesAndExtensionsWithTheirResets() throws {
        let index = index([
            ("Sources/A/Flags.swift", """
                public enum Outer {
                    public enum Flags {
                        nonisolated(unsafe) public static var beta = false
                        nonisolated(unsafe) static var token: String?
                        nonisolated(unsafe) private static var hidden = 1
                        public static var computed: Bool { beta }
                        static func reset() { beta = false }
                    }
                }
                extension Outer.Flags {
                    static func enable() { Self.beta = true }
                }
                """),
            ("Tests/ATests/FlagTests.swift", """
                final class FlagTests: XCTestCase {
                    func testA() { XCTAssertFalse(Outer.Flags.beta) }
                    func testB() {
                        Outer.Flags.beta.toggle()
                        Flags.token = "t"
                        XCTAssertNotNil(Outer.Flags.token)
                    }
                }
                """),
        ])
        let beta = try entry(index, "Outer.Flags.beta")
        XCTAssertEqual(beta.kind, .staticProperty)
        XCTAssertEqual(beta.resetStatement, "Outer.Flags.beta = false")
        XCTAssertEqual(beta.writes, ["Sources/A/Flags.swift": [7, 11], "Tests/ATests/FlagTests.swift": [4]])
        XCTAssertEqual(beta.reads, ["Sources/A/Flags.swift": [6], "Tests/ATests/FlagTests.swift": [2]])
        XCTAssertEqual(try entry(index, "Outer.Flags.token").resetStatement, "Outer.Flags.token = nil", "an optional without initializer")
        XCTAssertEqual(try entry(index, "Outer.Flags.token").writes, ["Tests/ATests/FlagTests.swift": [5]])
        XCTAssertNil(try entry(index, "Outer.Flags.hidden").resetStatement, "a private static cannot be reset from a test")
        XCTAssertNil(index.entry("Outer.Flags.computed"), "a computed property holds no state")
    }

    func testASingletonsStoredPropertiesNamedThroughItsHolder() throws {
        let index = index([
            ("Sources/A/Registry.swift", """
                public final class PluginRegistry: @unchecked Sendable {
                    public static let shared = PluginRegistry()
                    public private(set) var names: [String] = []
                    var limit = 4
                    public func register(_ name: String) { names.append(name) }
                    public var isEmpty: Bool { names.isEmpty }
                    func local() { var names = 0; names += 1 }
                }
                public struct Value { var names: [String] = [] }
                """),
            ("Tests/ATests/RegistryTests.swift", """
                func testRegisters() {
                    PluginRegistry.shared.register("markdown")
                    XCTAssertEqual(PluginRegistry.shared.names.last, "markdown")
                    PluginRegistry.shared.limit = 2
                    PluginRegistry.shared.names[0] = "x"
                }
                """),
        ])
        let names = try entry(index, "PluginRegistry.shared.names")
        XCTAssertEqual(names.kind, .singleton)
        XCTAssertNil(names.resetStatement, "private(set): not settable from a test")
        XCTAssertEqual(names.writes["Sources/A/Registry.swift"], [5, 7], "the bare member in its class (a local of the same name too: tokens know no scopes of locals)")
        XCTAssertEqual(names.writes["Tests/ATests/RegistryTests.swift"], [5], "a subscript assignment")
        XCTAssertEqual(names.reads, ["Sources/A/Registry.swift": [6], "Tests/ATests/RegistryTests.swift": [3]])
        XCTAssertEqual(try entry(index, "PluginRegistry.shared.limit").resetStatement, "PluginRegistry.shared.limit = 4")
        XCTAssertEqual(try entry(index, "PluginRegistry.shared.limit").writes, ["Tests/ATests/RegistryTests.swift": [4]])
        XCTAssertNil(index.entry("PluginRegistry.shared"), "the holder (a let) is not state; its class's properties are")
    }

    func testUserDefaultsKeysEnvironmentVariablesAndFiles() throws {
        let index = index([("Sources/A/External.swift", """
            func complete() { UserDefaults.standard.set(true, forKey: "app.onboarded") }
            var isDone: Bool { UserDefaults.standard.bool(forKey: "app.onboarded") }
            func forget() { UserDefaults.standard.removeObject(forKey: "app.onboarded") }
            func region() -> String { getenv("APP_REGION").map { String(cString: $0) } ?? "us" }
            func europe() { setenv("APP_REGION", "eu", 1) }
            func home() -> String? { ProcessInfo.processInfo.environment["HOME"] }
            enum Lock {
                static var path: String { NSTemporaryDirectory() + "x.lock" }
                static func take() { FileManager.default.createFile(atPath: path, contents: Data()) }
                static var held: Bool { FileManager.default.fileExists(atPath: path) }
                static func drop() { unlink(Lock.path) }
            }
            func save(_ data: Data, to url: URL) throws { try data.write(to: url) }
            func load(_ url: URL) -> Data? { try? Data(contentsOf: url) }
            func cache() -> Int { let store = NSCache<NSString, NSString>(); store.object(forKey: "k"); return 0 }
            """)])
        let key = try entry(index, #"UserDefaults.standard["app.onboarded"]"#)
        XCTAssertEqual(key.kind, .userDefaults)
        XCTAssertEqual(key.writes, ["Sources/A/External.swift": [1, 3]])
        XCTAssertEqual(key.reads, ["Sources/A/External.swift": [2]])
        XCTAssertEqual(key.resetStatement, #"UserDefaults.standard.removeObject(forKey: "app.onboarded")"#)
        XCTAssertNil(index.entry(#"UserDefaults.standard["k"]"#), "forKey: of another API is not a UserDefaults key")
        let region = try entry(index, "environment variable APP_REGION")
        XCTAssertEqual(region.kind, .environment)
        XCTAssertEqual(region.writes, ["Sources/A/External.swift": [5]])
        XCTAssertEqual(region.reads, ["Sources/A/External.swift": [4]])
        XCTAssertEqual(region.resetStatement, #"unsetenv("APP_REGION")"#)
        XCTAssertEqual(try entry(index, "environment variable HOME").reads, ["Sources/A/External.swift": [6]])
        let lock = try entry(index, "file Lock.path")
        XCTAssertEqual(lock.kind, .file)
        XCTAssertEqual(lock.writes, ["Sources/A/External.swift": [9, 11]], "a bare property in its type is named as other files name it")
        XCTAssertEqual(lock.reads, ["Sources/A/External.swift": [10]])
        XCTAssertEqual(try entry(index, "file url (in save)").writes, ["Sources/A/External.swift": [13]], "a parameter is its function's")
        XCTAssertEqual(try entry(index, "file url (in load)").reads, ["Sources/A/External.swift": [14]])
        XCTAssertNil(index.entry("Lock.path"), "a computed static is not state")
    }

    /// The corpus's sources: every in-process item truth.json names is indexed, with sites on both sides.
    func testTheCorpusStateIsIndexed() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("sample-profiles/packages/FlakyCauses")
        let paths = ["Sources", "Tests"].flatMap { folder in
            (FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)?.allObjects as? [String] ?? []).map { folder + "/" + $0 }
        }
        let index = StateIndex.read(root: root, paths: paths)
        for name in ["retryLimit", "FeatureFlags.beta", "PluginRegistry.shared.names", #"UserDefaults.standard["flakycauses.onboarded"]"#,
                     "environment variable FLAKYCAUSES_REGION", "Auth.token", "Tally.count", "file ExportLock.path"] {
            let item = try entry(index, name)
            XCTAssertFalse(item.writes.isEmpty, name)
            XCTAssertFalse(item.reads.isEmpty, name)
        }
        XCTAssertEqual(try entry(index, "FeatureFlags.beta").writes["Tests/FlakyCausesTests/OrderDependentTests.swift"], [25, 30])
    }
}

/// The ranking of the candidates, on an index of small sources and the lines each test "ran".
final class SharedStateRankingTests: XCTestCase {
    let index = StateIndex.build(files: [(path: "Sources/A/State.swift", text: """
        nonisolated(unsafe) var a = 0
        nonisolated(unsafe) var b = 0
        nonisolated(unsafe) var c = 0
        nonisolated(unsafe) var d = 0
        nonisolated(unsafe) var e = 0
        func writeAll() { a = 1; b = 1; c = 1; d = 1; e = 1 }
        func readAll() -> Int { a + b + c + d + e }
        func resetB() { b = 0 }
        func resetC() { c = 0 }
        func lock() { FileManager.default.createFile(atPath: "/tmp/x.lock", contents: nil) }
        func locked() -> Bool { FileManager.default.fileExists(atPath: "/tmp/x.lock") }
        func setA() { a = 2 }
        """)])
    let file = "Sources/A/State.swift"
    let names = (first: "P", second: "V")

    func testTheVictimsOwnWritesGoLastACleanersFirstAndAtMostThreeAreKept() {
        // The polluter writes all five, the victim reads all five and writes `a` itself, a cleaner resets `c`.
        let state = SharedStateSearch.rank(index, first: [[file: [6]]], second: [file: [7, 12]], cleaners: [[file: [9]]], names: names)
        XCTAssertFalse(state.outsideProcess)
        XCTAssertEqual(state.items.map(\.name), ["c", "b", "d"], "the cleaner's item first, the victim's own (a) last; at most 3")
        let fair = SharedStateSearch.rank(index, first: [[file: [6]]], second: [file: [7]], cleaners: [[file: [9]]], names: names)
        XCTAssertEqual(fair.items.map(\.name), ["c", "a", "b"], "the cleaner's item first, then by name")
        XCTAssertEqual(fair.items[0].writeSites, [SourceSite(file: file, line: 6)])
        XCTAssertEqual(fair.items[0].readSites, [SourceSite(file: file, line: 7)])
        XCTAssertEqual(fair.items[0].resetStatement, "c = 0")
    }

    func testAFileAloneIsOutsideTheProcessAndNothingGivesANote() {
        let outside = SharedStateSearch.rank(index, first: [[file: [10]]], second: [file: [11]], cleaners: [], names: names)
        XCTAssertTrue(outside.outsideProcess)
        XCTAssertEqual(outside.items.map(\.name), [])
        XCTAssertEqual(outside.outsideEvidence.map(\.name), [#"file "/tmp/x.lock""#])
        let both = SharedStateSearch.rank(index, first: [[file: [6, 10]]], second: [file: [7, 11]], cleaners: [], names: names)
        XCTAssertFalse(both.outsideProcess, "state in the process ranks before a file")
        XCTAssertEqual(both.items.map(\.name), ["a", "b", "c"])
        let none = SharedStateSearch.rank(index, first: [[file: [8]]], second: [file: [11]], cleaners: [], names: names)
        XCTAssertEqual(none.items.map(\.name), [])
        XCTAssertEqual(none.note, "no state written by P and read by V was found in the package's sources")
    }
}
