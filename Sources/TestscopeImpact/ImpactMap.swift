import Foundation
import TestscopeCoverage
import TestscopeExecution

/// What one `run --per-test-coverage` recorded for test selection: at a commit and in an environment,
/// the package's functions (with their body regions and token checksums) and, per test, which of them it
/// executed, its outcome and duration. Granularity: functions; a test's files follow from its
/// functions, its lines are in the run's `per-test.json` (not copied here).
package struct ImpactMap: Codable, Equatable, Sendable {
    /// The map's layout version, part of the environment: a map of another version is not used.
    package static let formatVersion = 1

    package var version: Int
    package var commit: String
    package var tree: String?
    /// Files whose text differed from `commit` when the map was recorded (a dirty tree), by
    /// package-relative path: their text's hash (`ImpactMap.contentHash`). Selection compares them
    /// with the working tree instead of with git.
    package var dirtyFiles: [String: String]
    /// The text of the dirty source files (Swift, C), by path: the selection diffs against it, so an edit
    /// made after a run on a dirty tree (every local run) is placed in its function, not in its file.
    package var dirtyTexts: [String: String] = [:]
    package var environment: ImpactEnvironment
    /// Package-relative paths of every file a function comes from.
    package var files: [String]
    package var functions: [Function]
    /// The "outside tests" context (per-test coverage's context 0): global initialisers, class setUp, …
    package var outsideTests: String
    package var tests: [Test]
    /// Where the map came from, beside its JSON (not encoded, not compared).
    package var recording = Recording()

    /// The run that recorded a map and its per-test lines (`per-test.json`'s content): stored beside the
    /// map (`HistoryImpactStore`), carried forward for the tests a selective run skips. Not what the map
    /// says: maps are equal by their content whatever recorded them.
    package struct Recording: Equatable, Sendable {
        /// The recording run's per-test coverage, when the map is being saved.
        package var lines: PerTestCoverage?
        /// The regions each context's functions ran, with `lines`.
        package var regions: PerTestRegions?
        /// The run that recorded the map, when read from a store.
        package var runUUID: String?

        package init(lines: PerTestCoverage? = nil, regions: PerTestRegions? = nil, runUUID: String? = nil) {
            self.lines = lines
            self.regions = regions
            self.runUUID = runUUID
        }

        package static func == (_: Recording, _: Recording) -> Bool { true }
    }

    /// A function of the package as the coverage mapping gives it.
    package struct Function: Codable, Equatable, Sendable {
        /// Index into `files`.
        package var file: Int
        /// The profile name's symbol (a mangled Swift name, or a C name).
        package var name: String
        /// The union of its code regions in its file: `[startLine, startColumn, endLine, endColumn]`.
        package var region: [UInt32]
        /// `SourceTokens.checksum` of the region, hexadecimal (the text's state when recorded).
        package var checksum: String

        /// Encoded as one array, `[file, name, startLine, startColumn, endLine, endColumn, checksum]`:
        /// keys repeated per function were a fifth of the map.
        package init(from decoder: Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            file = try fields.decode(Int.self)
            name = try fields.decode(String.self)
            region = try (0..<4).map { _ in try fields.decode(UInt32.self) }
            checksum = try fields.decode(String.self)
        }

        package func encode(to encoder: Encoder) throws {
            var fields = encoder.unkeyedContainer()
            try fields.encode(file)
            try fields.encode(name)
            for value in region { try fields.encode(value) }
            try fields.encode(checksum)
        }

        package init(file: Int, name: String, start: SourcePosition, end: SourcePosition, checksum: UInt64) {
            self.file = file
            self.name = name
            self.region = [start.line, start.column, end.line, end.column]
            self.checksum = ImpactMap.Function.checksumText(checksum)
        }

        /// 48 bits of the checksum: a stale map is told from the text with odds of 1 in 2^48.
        package static func checksumText(_ checksum: UInt64) -> String { String(checksum >> 16, radix: 16) }

        package var start: SourcePosition { SourcePosition(line: region.first ?? 0, column: region.count > 1 ? region[1] : 0) }
        package var end: SourcePosition { SourcePosition(line: region.count > 2 ? region[2] : 0, column: region.count > 3 ? region[3] : 0) }
    }

    /// One test (all cases of a parameterized test together).
    package struct Test: Codable, Equatable, Sendable {
        package var id: String
        /// `TestOutcome`'s raw value, the worst of its cases.
        package var outcome: String
        package var duration: Double?
        /// Indexes into `functions` as ranges, `"0-4,9"` (`PerTestCoverage.text`).
        package var functions: String
        /// False when the run lost the test's counts (its process crashed or was killed).
        package var usable: Bool

        enum CodingKeys: String, CodingKey { case id, outcome = "o", duration = "d", functions = "f", usable = "u" }

        package init(id: String, outcome: String, duration: Double?, functions: Set<Int>, usable: Bool) {
            self.id = id
            self.outcome = outcome
            self.duration = duration
            self.functions = ImpactMap.text(functions)
            self.usable = usable
        }

        package var functionIndexes: [Int] { ImpactMap.indexes(functions) }
    }

    package init(commit: String, tree: String?, dirtyFiles: [String: String], environment: ImpactEnvironment,
                 files: [String], functions: [Function], outsideTests: Set<Int>, tests: [Test]) {
        version = Self.formatVersion
        self.commit = commit
        self.tree = tree
        self.dirtyFiles = dirtyFiles
        self.environment = environment
        self.files = files
        self.functions = functions
        self.outsideTests = Self.text(outsideTests)
        self.tests = tests
    }

    package var outsideTestFunctions: [Int] { Self.indexes(outsideTests) }

    enum CodingKeys: String, CodingKey { case version, commit, tree, dirtyFiles, dirtyTexts, environment, files, functions, outsideTests, tests }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        commit = try c.decode(String.self, forKey: .commit)
        tree = try c.decodeIfPresent(String.self, forKey: .tree)
        dirtyFiles = try c.decode([String: String].self, forKey: .dirtyFiles)
        dirtyTexts = try c.decodeIfPresent([String: String].self, forKey: .dirtyTexts) ?? [:]
        environment = try c.decode(ImpactEnvironment.self, forKey: .environment)
        files = try c.decode([String].self, forKey: .files)
        functions = try c.decode([Function].self, forKey: .functions)
        tests = try c.decode([Test].self, forKey: .tests)
        guard let names = Self.expandBeginnings(functions.map(\.name)), let ids = Self.expandBeginnings(tests.map(\.id)) else {
            throw DecodingError.dataCorruptedError(forKey: .functions, in: c, debugDescription: "a name's shared beginning is longer than the name before it")
        }
        for i in functions.indices { functions[i].name = names[i] }
        for i in tests.indices { tests[i].id = ids[i] }
        outsideTests = try c.decode(String.self, forKey: .outsideTests)
    }

    /// Names and test ids share their beginnings with the one before (`shareBeginnings`): a file's
    /// Swift symbols share their module and type prefixes, a class's tests their class.
    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(commit, forKey: .commit)
        try c.encodeIfPresent(tree, forKey: .tree)
        try c.encode(dirtyFiles, forKey: .dirtyFiles)
        if !dirtyTexts.isEmpty { try c.encode(dirtyTexts, forKey: .dirtyTexts) }
        try c.encode(environment, forKey: .environment)
        try c.encode(files, forKey: .files)
        var coded = functions
        for (i, name) in Self.shareBeginnings(functions.map(\.name)).enumerated() { coded[i].name = name }
        var codedTests = tests
        for (i, id) in Self.shareBeginnings(tests.map(\.id)).enumerated() { codedTests[i].id = id }
        try c.encode(coded, forKey: .functions)
        try c.encode(outsideTests, forKey: .outsideTests)
        try c.encode(codedTests, forKey: .tests)
    }

    /// Each name that shares more than 4 bytes with the one before as `<shared>~<rest>` (symbols and
    /// test ids never start with a digit).
    static func shareBeginnings(_ names: [String]) -> [String] {
        var result = names
        for i in names.indices.dropFirst() {
            let previous = Array(names[i - 1].utf8), name = Array(names[i].utf8)
            var shared = 0
            while shared < min(previous.count, name.count), previous[shared] == name[shared] { shared += 1 }
            // Not inside a multi-byte character.
            while shared > 0, shared < name.count, name[shared] & 0xC0 == 0x80 { shared -= 1 }
            if shared > 4 { result[i] = "\(shared)~" + String(decoding: name[shared...], as: UTF8.self) }
        }
        return result
    }

    /// `shareBeginnings` undone; nil when a shared beginning is longer than the name before it.
    static func expandBeginnings(_ coded: [String]) -> [String]? {
        var result = coded
        for i in coded.indices where coded[i].first?.isNumber == true {
            let parts = coded[i].split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)
            guard i > 0, parts.count == 2, let shared = Int(parts[0]), shared <= result[i - 1].utf8.count,
                  let head = String(result[i - 1].utf8.prefix(shared)) else { return nil }
            result[i] = head + parts[1]
        }
        return result
    }

    /// The hash recorded for a dirty file's text.
    package static func contentHash(_ text: String) -> String { String(StableHash.hash(seed: 0, text), radix: 16) }

    static func text(_ indexes: Set<Int>) -> String {
        PerTestCoverage.text(PerTestCoverage.ranges(of: Set(indexes.map { UInt32($0) })))
    }

    static func indexes(_ text: String) -> [Int] {
        PerTestCoverage.ranges(text).flatMap { $0.map { Int($0) } }
    }

    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    package static func decoded(_ data: Data) throws -> ImpactMap { try JSONDecoder().decode(ImpactMap.self, from: data) }
}

/// What a build's behaviour depends on besides the sources: a map recorded in another environment
/// says nothing about this one.
package struct ImpactEnvironment: Codable, Equatable, Sendable {
    /// `swift --version`'s first line.
    package var toolchain: String
    /// `-c debug|release`.
    package var configuration: String
    /// The build arguments (`-Xswiftc …`, traits, sanitizers), in order.
    package var buildArguments: [String]
    /// Hashes of Package.swift and Package.resolved (`ImpactMap.contentHash`; "" when absent).
    package var manifestHash: String
    package var resolvedHash: String
    package var mapVersion: Int

    package init(toolchain: String, configuration: String, buildArguments: [String], manifestHash: String, resolvedHash: String,
                 mapVersion: Int = ImpactMap.formatVersion) {
        self.toolchain = toolchain
        self.configuration = configuration
        self.buildArguments = buildArguments
        self.manifestHash = manifestHash
        self.resolvedHash = resolvedHash
        self.mapVersion = mapVersion
    }

    /// Why a map recorded in `self` does not apply to `current`; nil when it does.
    package func mismatch(_ current: ImpactEnvironment) -> String? {
        if mapVersion != current.mapVersion { return "the map's version is \(mapVersion), this Testscope's \(current.mapVersion)" }
        if toolchain != current.toolchain { return "the toolchain changed (\(toolchain) → \(current.toolchain))" }
        if configuration != current.configuration { return "the configuration changed (-c \(configuration) → -c \(current.configuration))" }
        if buildArguments != current.buildArguments {
            return "the build arguments changed (\(buildArguments.joined(separator: " ")) → \(current.buildArguments.joined(separator: " ")))"
        }
        if manifestHash != current.manifestHash { return "Package.swift changed" }
        if resolvedHash != current.resolvedHash { return "Package.resolved changed" }
        return nil
    }
}
