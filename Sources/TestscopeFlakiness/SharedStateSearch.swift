import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeProfileData

/// Names the state an order-dependent pair shares (`TestFinding.sharedState`): the minimal order (polluters,
/// victim, then its cleaners; setters, brittle test) is run once with the entry point's per-test recorder,
/// and the items of the `StateIndex` that a test of the first group wrote and the second test read, on
/// lines each of them ran, are the candidates. Ranked: first those the second test does not write itself,
/// then those a cleaner writes too, then state in the process before files; at most 3. When the best is a
/// file, the cause is outside the process and no item is named.
package struct SharedStateSearch: Sendable {
    package let index: StateIndex
    package let executor: OrderExecutor
    package let packageRoot: URL
    /// Where each order's per-test counts are written (removed after reading).
    package let workDirectory: URL
    /// The package's functions in the binary's coverage mapping, and the package's files among their files.
    let mapped: [MappedFunction]
    let files: [PerTestBuilder.KeptFile]

    package static let maximumItems = 3

    /// Reads the binary's coverage mapping once, and indexes the package's files it names: those compiled
    /// into the test binary, test files too (wherever the targets' paths put them; not `.build`'s).
    package init(executor: OrderExecutor, packageRoot: URL, workDirectory: URL) throws {
        self.executor = executor
        self.packageRoot = packageRoot
        self.workDirectory = workDirectory
        let mapping = try CoverageMappingReader.records(binaryAt: executor.binary.path)
        mapped = try (0..<mapping.count).map { try mapping.function(at: $0) }
        let filter = SourceFilter(root: packageRoot.path, testDirectories: [])
        var seen = Set<String>()
        var files: [PerTestBuilder.KeptFile] = []
        for name in mapped.flatMap(\.filenames) where seen.insert(name).inserted {
            guard let relative = filter.relativePath(name), filter.includes(name) else { continue }
            files.append(PerTestBuilder.KeptFile(path: name, relativePath: relative, lines: nil, lastLine: 0))
        }
        self.files = files
        index = StateIndex.read(root: packageRoot, paths: files.map(\.relativePath))
    }

    /// Fills `sharedState` of every od-victim and od-brittle finding (up to `jobs` orders at once); a pair
    /// whose order could not be run says why in its note (the findings stand without it).
    package func fill(_ findings: inout [TestFinding], jobs: Int) throws {
        let pairs = findings.indices.filter { findings[$0].classification == .odVictim || findings[$0].classification == .odBrittle }
        let snapshot = findings
        let results = try AdaptivePool.map(pairs.count, jobs: jobs) { k -> SharedStateFinding? in
            do { return try self.search(snapshot[pairs[k]], number: k) } catch {
                return SharedStateFinding(items: [], note: "not searched: the order with per-test coverage did not run (\(error.localizedDescription))")
            }
        }
        for (k, i) in pairs.enumerated() { findings[i].sharedState = results[k] }
    }

    /// The search for one finding; nil when it has no first group.
    func search(_ finding: TestFinding, number: Int) throws -> SharedStateFinding? {
        let victim = finding.classification == .odVictim
        guard let group = (victim ? finding.polluterGroups : finding.setterGroups).first else { return nil }
        let cleaners = victim ? finding.cleaners.filter { !group.contains($0) && $0 != finding.id } : []
        var lines = try linesRun(group + [finding.id] + cleaners, number: number, tag: "order")
        if lines[finding.id] == nil {
            // It crashed after the polluter (its counts die with the process): what it reads, it reads alone too.
            lines.merge(try linesRun([finding.id], number: number, tag: "alone")) { old, _ in old }
        }
        guard let second = lines[finding.id] else {
            return SharedStateFinding(items: [], note: "the lines \(finding.id) ran were not recorded (its process may have ended during it)")
        }
        let firstName = group.count == 1 ? group[0] : "\(group.count) tests (\(group[0]), …)"
        return Self.rank(index, first: group.compactMap { lines[$0] }, second: second, cleaners: cleaners.compactMap { lines[$0] },
                         names: (firstName, finding.id))
    }

    /// The candidates (an item with a write site the first tests ran and a read site the second ran), ranked:
    /// not written by the second test itself (it would set it before reading), then written by a cleaner too,
    /// then in the process before a file, then by name. The best a file: outside the process.
    package static func rank(_ index: StateIndex, first: [[String: Set<Int>]], second: [String: Set<Int>], cleaners: [[String: Set<Int>]],
                     names: (first: String, second: String)) -> SharedStateFinding {
        var candidates: [(item: SharedStateItem, key: (Int, Int, Int, String))] = []
        for entry in index.entries {
            let writes = sites(entry.writes, ranBy: first)
            let reads = sites(entry.reads, ranBy: [second])
            guard !writes.isEmpty, !reads.isEmpty else { continue }
            let item = SharedStateItem(name: entry.name, kind: entry.kind, writeSites: writes, readSites: reads, resetStatement: entry.resetStatement)
            let selfWritten = !sites(entry.writes, ranBy: [second]).isEmpty, cleanerWrites = !sites(entry.writes, ranBy: cleaners).isEmpty
            candidates.append((item, (selfWritten ? 1 : 0, cleanerWrites ? 0 : 1, item.isOutsideProcess ? 1 : 0, item.name)))
        }
        let ranked = candidates.sorted { $0.key < $1.key }.map(\.item)
        guard let best = ranked.first else {
            return SharedStateFinding(items: [], note: "no state written by \(names.first) and read by \(names.second) was found in the package's sources")
        }
        if best.isOutsideProcess {
            return SharedStateFinding(items: [], outsideProcess: true, outsideEvidence: Array(ranked.filter(\.isOutsideProcess).prefix(maximumItems)))
        }
        return SharedStateFinding(items: Array(ranked.filter { !$0.isOutsideProcess }.prefix(maximumItems)))
    }

    /// The lines each test of `order` ran (package-relative path → lines), by test id; a test whose counts
    /// were lost has none.
    func linesRun(_ order: [String], number: Int, tag: String) throws -> [String: [String: Set<Int>]] {
        let directory = workDirectory.appendingPathComponent("state-\(number)-\(tag)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try executor.execute(order, perTestDirectory: directory)
        var processes: [PerTestProcess] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() where name.hasSuffix(".contexts") {
            let base = directory.appendingPathComponent(String(name.dropLast(".contexts".count))).path
            // An unreadable process (killed while writing) only loses its tests' lines.
            guard let layout = try? RawProfileReader.read(path: base + ".layout.profraw").first,
                  let contexts = try? PerTestContextFile.read(path: base + ".contexts") else { continue }
            processes.append(PerTestProcess(layout: layout, blocks: contexts.blocks))
        }
        let coverage = PerTestBuilder.record(mapped: mapped, processes: processes, files: files, ranTests: order).coverage
        var result: [String: [String: Set<Int>]] = [:]
        for test in Set(order) where coverage.contexts.contains(where: { $0.id == test }) {
            var byFile: [String: Set<Int>] = [:]
            for (path, ranges) in coverage.lines(coveredBy: test) { byFile[path] = Set(ranges.flatMap { $0.map(Int.init) }) }
            result[test] = byFile
        }
        return result
    }

    /// The sites among `lines` (by file) that one of `tests` ran, in file and line order.
    static func sites(_ lines: [String: Set<Int>], ranBy tests: [[String: Set<Int>]]) -> [SourceSite] {
        var sites: [SourceSite] = []
        for file in lines.keys.sorted() {
            let ran = tests.reduce(into: Set<Int>()) { $0.formUnion($1[file] ?? []) }
            sites += lines[file]!.intersection(ran).sorted().map { SourceSite(file: file, line: $0) }
        }
        return sites
    }
}
