import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeProfileData
import TestscopeRun
import TestscopeTestResults

extension Pipeline {
    /// `testscope merge`: the output folders of `run --shard K/N` reported as if one run had made them —
    /// the shards' raw profiles summed with the test binary they ran, their test results combined, every
    /// format and gate applied once. Everything is checked before the output folder is touched.
    public func merge(_ request: MergeRequest) throws -> Outcome {
        let root = request.packageRoot
        let output = request.settings.outputFolder(packageRoot: root)
        // A bad --history file fails before anything is read or written.
        let history = try HistoryRecording.prepare(request.settings.history, command: "merge", timeout: historyTimeout)
        let shards = try ShardSet.read(request.shards, output: output)
        for warning in shards.warnings { terminal.emit(warning) }
        let binary = try shards.testBinary(request, packageRoot: root)
        var report = ReportRequest(packageRoot: root, settings: request.settings)
        var tests = TestRunResults()
        for shard in shards.members {
            let inputs = try shard.run.inputs(for: ReportRequest(packageRoot: root), in: OutputFolder(shard.folder), binaries: false)
            report.profiles += inputs.profiles
            let list = try inputs.testList.map { TestList.parse(try TestResultImporter.read($0)) }
            var results = try TestResultImporter.combined(logs: inputs.testLogs, streams: inputs.eventStreams, junit: [], testList: list)
            // A selective run's shards each name the tests the selection skipped: once in the merged results.
            if let verdicts = shard.run.supervisor { results = verdicts.addingSkips(to: results) }
            tests.merge(results.results)
            for skip in results.notSelected where !tests.notSelected.contains(where: { $0.id == skip.id }) { tests.notSelected.append(skip) }
            (tests.relaunches, tests.warnings) = (tests.relaunches + results.relaunches, tests.warnings + results.warnings)
        }
        // The shards' common way of recording (atomic counters, parallel tests), else unknown.
        let causes = Set(shards.members.map { $0.run.negativeCounts ?? .unknown })
        report.settings.negativeCounts = causes.count == 1 ? causes.first! : .unknown
        for warning in tests.warnings { terminal.emit(warning) }
        tests.properties = [("shards", shards.members.map(\.manifest.shard).joined(separator: ", "))]
            + (shards.members.first?.manifest.swift.map { [("swift", $0)] } ?? [])
        terminal.note("merging \(shards.members.count) shard(s): \(report.profiles.count) profile(s) with \(binary.path)")
        // A selective run's shards carry the same skipped tests' coverage (one selection): added once.
        let carried = shards.members.map(\.run.carried)
        if let first = carried.first, let first, carried.allSatisfy({ $0 == first }) { report.carryForward = first }
        if !report.profiles.isEmpty || report.carryForward != nil { report.binaries = [binary] }
        let toolchain = shards.members.first?.manifest.swift
        return try render(report, tests: tests, output: output, command: "merge", history: history.map { ($0, toolchain) })
    }
}

/// The shards `merge` was given, read and checked against each other.
struct ShardSet {
    struct Member {
        var folder: URL
        var manifest: ShardManifest
        var run: LastRun
    }

    var members: [Member]
    /// Missing shards, other test lists, other toolchains: merged anyway, with a warning.
    var warnings: [Diagnostic] = []

    /// The shards in `folders`: one error line (exit 65) for a folder that is not a shard's, shards of
    /// different splits or builds, a shard given twice, or a test in two shards.
    static func read(_ folders: [URL], output: OutputFolder) throws -> ShardSet {
        for folder in folders where folder.standardizedFileURL.resolvingSymlinksInPath().path == output.url.resolvingSymlinksInPath().path {
            throw ShardError.outputIsAShard(path: output.url.path)
        }
        var members: [Member] = []
        for folder in folders {
            let manifest = try ShardManifest.read(in: folder)
            do {
                members.append(Member(folder: folder, manifest: manifest, run: try LastRun.read(in: OutputFolder(folder))))
            } catch is LastRunError {
                throw ShardError.notAShardFolder(path: folder.path)
            }
        }
        let shards = members.compactMap { $0.manifest.testShard }
        let counts = Set(shards.map(\.count))
        if counts.count > 1 {
            throw ShardError.differentSplits(zip(shards, members).map { "\($0) in \($1.folder.path)" }.joined(separator: ", "))
        }
        for shard in Set(shards) {
            let folders = zip(shards, members).filter { $0.0 == shard }.map(\.1.folder.path)
            if folders.count > 1 { throw ShardError.sameShardTwice(shard: shard.description, folders: folders) }
        }
        let buildIDs = Set(members.compactMap(\.manifest.buildID))
        if buildIDs.count > 1 {
            throw ShardError.differentBuilds(members.map { "\($0.manifest.buildID ?? "none") in \($0.manifest.shard)" }.joined(separator: ", "))
        }
        var ranIn: [String: String] = [:]
        for member in members {
            for test in member.manifest.tests {
                if let first = ranIn.updateValue(member.manifest.shard, forKey: test) {
                    throw ShardError.testInTwoShards(test: test, first: first, second: member.manifest.shard)
                }
            }
        }
        var set = ShardSet(members: members.sorted { ($0.manifest.testShard?.index ?? 0) < ($1.manifest.testShard?.index ?? 0) })
        if let count = counts.first {
            let missing = (1...count).filter { k in !shards.contains { $0.index == k } }.map { "\($0)/\(count)" }
            if !missing.isEmpty {
                let named = missing.count > 10 ? missing.prefix(10).joined(separator: ", ") + " and \(missing.count - 10) more" : missing.joined(separator: ", ")
                set.warnings.append(.warning("shard(s) \(named) missing: the merged report has only the tests of "
                    + set.members.map(\.manifest.shard).joined(separator: ", ") + " and their coverage"))
            }
        }
        if Set(members.map(\.manifest.partitioned)).count > 1 {
            let counts = set.members.map { "\($0.manifest.partitioned) in \($0.manifest.shard)" }.joined(separator: ", ")
            set.warnings.append(.warning("the shards were cut from different numbers of tests (\(counts)): "
                + "some tests may have run in no shard; run every shard with the same --filter/--skip"))
        }
        if Set(members.compactMap(\.manifest.toolchain)).count > 1 {
            let toolchains = Set(members.compactMap(\.manifest.toolchain)).sorted().joined(separator: "; ")
            set.warnings.append(.warning("the shards recorded different toolchains (\(toolchains))"))
        }
        return set
    }

    /// The shards' build ID (nil when no manifest has one).
    var buildID: String? { members.lazy.compactMap(\.manifest.buildID).first }

    /// `--binary`; else the test binary of `--build-path`, the one the shards recorded, or one in the
    /// package's build folders — the first whose build ID is the shards'. A binary of another build is refused.
    func testBinary(_ request: MergeRequest, packageRoot: URL) throws -> URL {
        let candidates: [URL]
        let searched: String
        if let binary = request.binary {
            guard FileManager.default.fileExists(atPath: binary.path) else { throw CoverageError.fileNotFound(path: binary.path) }
            (candidates, searched) = ([binary], binary.path)
        } else if let buildPath = request.buildPath {
            guard FileManager.default.fileExists(atPath: buildPath.path) else { throw CoverageError.fileNotFound(path: buildPath.path) }
            (candidates, searched) = (BuildArtifacts.testBinaries(underBuildPath: buildPath), buildPath.path)
        } else {
            let recorded = members.map { URL(fileURLWithPath: $0.manifest.binary) }.filter { FileManager.default.fileExists(atPath: $0.path) }
            let build = packageRoot.appendingPathComponent(".build")
            (candidates, searched) = (recorded + BuildArtifacts.testBinaries(underBuildPath: build), build.path)
        }
        guard let first = candidates.first else { throw ShardError.noTestBinary(searched: searched) }
        guard let buildID else { return first }
        let ids = candidates.map { (try? ELFFile(path: $0.path).buildID()) ?? nil }
        if let index = ids.firstIndex(of: buildID) { return candidates[index] }
        throw ShardError.binaryOfAnotherBuild(binary: first.path, buildID: ids[0] ?? "none", shardBuildID: buildID)
    }
}
