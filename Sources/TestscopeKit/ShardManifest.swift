import Foundation
import TestscopeExecution
import TestscopeProfileData
import TestscopeTestResults

/// `.testscope-shard.json`: what `testscope run --shard K/N` ran, and with which build, so that
/// `testscope merge` can check that its shards belong together (docs/output-folder.md describes it).
/// The shard's files (profiles, log, event streams, test list) are in the folder's `.testscope-run.json`.
package struct ShardManifest: Codable, Sendable, Equatable {
    package static let fileName = ".testscope-shard.json"
    package var version = 1
    /// `K/N`.
    package var shard: String
    /// `hash` (the stable hash of the ids) or `durations` (`--shard-timings`).
    package var partition: String
    /// How many tests the shards were cut from (after --filter/--skip).
    package var partitioned: Int
    /// The test binary's GNU build ID, lower-case hex (nil when it has none, e.g. a Mach-O binary).
    package var buildID: String?
    /// The test binary's path on the machine that ran the shard.
    package var binary: String
    /// The first line of `swift --version`, and the `swift` it came from.
    package var toolchain: String?
    package var swift: String?
    package var packageRoot: String
    /// The ids of the tests this shard ran (`swift test list`'s specifiers), XCTest's then Swift Testing's.
    package var tests: [String]

    /// The shard this manifest describes (nil when its text is not `K/N`).
    package var testShard: TestShard? { TestShard(parsing: shard) }

    /// The manifest of a shard run that used `binary` and `swift`.
    static func make(shard: TestShard, timed: Bool, partitioned: Int, binary: URL, swift: URL, packageRoot: URL, tests: TestList) -> ShardManifest {
        let version = (try? ProcessRunner.run(swift, ["--version"]))
            .flatMap { $0.succeeded ? $0.stdoutText.split(separator: "\n").first.map(String.init) : nil }
        return ShardManifest(shard: shard.description, partition: timed ? "durations" : "hash", partitioned: partitioned,
                             buildID: try? ELFFile(path: binary.path).buildID(), binary: binary.path, toolchain: version,
                             swift: swift.path, packageRoot: packageRoot.path, tests: tests.xctest + tests.swiftTesting)
    }

    /// Writes the manifest (atomically) into the folder.
    func write(into output: OutputFolder) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFileWriter.write(String(decoding: try encoder.encode(self), as: UTF8.self) + "\n", to: try output.file(Self.fileName))
    }

    /// The manifest in `folder`; a `ShardError` when the folder is not a shard's output folder.
    static func read(in folder: URL) throws -> ShardManifest {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ShardError.notAShardFolder(path: folder.path)
        }
        let url = folder.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw ShardError.notAShardFolder(path: folder.path) }
        guard let manifest = try? JSONDecoder().decode(ShardManifest.self, from: data), manifest.version == 1, manifest.testShard != nil else {
            throw ShardError.unreadableManifest(path: url.path)
        }
        return manifest
    }
}

/// Why shards cannot be merged (bad input: exit 65), each with what to do.
public enum ShardError: LocalizedError, ClassifiedError, Equatable {
    case notAShardFolder(path: String)
    case unreadableManifest(path: String)
    case differentSplits(String)
    case sameShardTwice(shard: String, folders: [String])
    case differentBuilds(String)
    case binaryOfAnotherBuild(binary: String, buildID: String, shardBuildID: String)
    case noTestBinary(searched: String)
    case testInTwoShards(test: String, first: String, second: String)
    case outputIsAShard(path: String)

    public var errorClass: ErrorClass { .badInput }

    public var errorDescription: String? {
        switch self {
        case .notAShardFolder(let path):
            return "\(path) is not a shard's output folder (no \(ShardManifest.fileName)); pass the --output folders of 'testscope run --shard K/N'"
        case .unreadableManifest(let path):
            return "\(path) is not a shard manifest of this Testscope version; run the shard again with 'testscope run --shard K/N'"
        case .differentSplits(let detail):
            return "the shards were cut into different numbers of shards (\(detail)); merge the shards of one split"
        case let .sameShardTwice(shard, folders):
            return "shard \(shard) is given twice (\(folders.joined(separator: ", "))); pass each shard's folder once"
        case .differentBuilds(let detail):
            return "the shards ran different builds of the test binary (build IDs: \(detail)); run every shard on the same commit, toolchain and flags"
        case let .binaryOfAnotherBuild(binary, buildID, shardBuildID):
            return "\(binary) is another build (build ID \(buildID)) than the shards ran (\(shardBuildID)); pass the shards' test binary with --binary, or build the same commit with the same toolchain and flags"
        case .noTestBinary(let searched):
            return "no test binary found in \(searched); pass the shards' test binary with --binary FILE or its build folder with --build-path DIR"
        case let .testInTwoShards(test, first, second):
            return "\(test) ran in shard \(first) and in shard \(second): the shards were not cut from the same tests; run every shard with the same --filter/--skip and --shard-timings"
        case .outputIsAShard(let path):
            return "the output folder \(path) is one of the shards' folders; pass another --output DIR for the merged report"
        }
    }
}
