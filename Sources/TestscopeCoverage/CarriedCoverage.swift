/// The lines a selective run's skipped tests ran when the map was recorded, already moved onto the current
/// files (`run --affected`): added to the run's own counts where the model's lines are made
/// (`CoverageBuilder`), so that totals, files, the gate, diff coverage and every format read a full run's lines.
package struct CarriedCoverage: Equatable, Sendable, Codable {
    /// The commit of the run whose per-test coverage is carried.
    package var commit: String
    /// How many skipped tests' coverage is carried.
    package var tests: Int
    /// By package-relative path: line → the skipped tests' summed counts there.
    package var lines: [String: [UInt32: UInt64]]
    /// Code run outside any test when recorded (class `setUp` of a skipped class, …), by path: its count
    /// is taken only where this run left a line at 0 (this run ran its own part of it; summing would count it twice).
    package var outsideTests: [String: [UInt32: UInt64]]
    /// By path and mangled name: the functions the skipped tests ran, their summed entry counts and the
    /// code regions any of them executed (a function's regions as `FunctionRecord` keeps them).
    package var functions: [String: [String: Function]] = [:]

    package struct Function: Equatable, Sendable, Codable {
        package var count: UInt64
        package var regions: Int
        package var executed: Set<Int>
    }

    package init(commit: String, tests: Int, lines: [String: [UInt32: UInt64]], outsideTests: [String: [UInt32: UInt64]] = [:]) {
        self.commit = commit
        self.tests = tests
        self.lines = lines
        self.outsideTests = outsideTests
    }

    /// Adds what a skipped test's run of a function gave.
    package mutating func addFunction(path: String, name: String, count: UInt64, regions: Int, executed: [Int]) {
        var function = functions[path, default: [:]][name] ?? Function(count: 0, regions: regions, executed: [])
        // A shape that differs between tests cannot be: the recording's compiler gave one.
        guard function.regions == regions else { return }
        function.count = FunctionRecord.saturatingAdd(function.count, count)
        function.executed.formUnion(executed)
        functions[path, default: [:]][name] = function
    }

    /// Adds the carried functions' entry counts and executed regions to a file's records (in `pool`),
    /// before they are grouped: functions, regions, instantiations and the diff's regions then count
    /// them. A record whose number of regions differs (another shape) is left as it is.
    func apply(to records: inout [FunctionRecord], pool: RegionPool, relativePath: String) {
        guard let carried = functions[relativePath] else { return }
        var done = Set<String>()
        for i in records.indices {
            guard let function = carried[records[i].mangledName], function.regions == Int(records[i].regionCount),
                  done.insert(records[i].mangledName).inserted else { continue }
            records[i].count = FunctionRecord.saturatingAdd(records[i].count, function.count)
            for region in function.executed where region < function.regions { pool.regions[Int(records[i].regionStart) + region].executed = true }
        }
    }

    /// `lines` (a file's executable lines) with the carried counts of `relativePath` added; and how many
    /// lines are covered only through them. A carried line the file no longer has as executable is left
    /// out (the model never invents a line); an unknown count stays unknown; a line covered only by the
    /// carried counts has no uncovered spans (which columns the skipped tests missed is not recorded).
    func apply(to lines: LineTable, relativePath: String) -> (lines: LineTable, carriedLines: Int) {
        let added = self.lines[relativePath] ?? [:], outside = outsideTests[relativePath] ?? [:]
        guard !added.isEmpty || !outside.isEmpty else { return (lines, 0) }
        var result = LineTable()
        result.reserveCapacity(lines.count)
        var carried = 0
        for line in lines {
            var count = line.count
            if !line.isUnreliable {
                let extra = added[line.line] ?? (count == 0 ? outside[line.line] ?? 0 : 0)
                let (sum, overflow) = count.addingReportingOverflow(extra)
                count = overflow || sum >= LineCoverage.unreliableCount ? LineCoverage.unreliableCount - 1 : sum
                if line.count == 0, count > 0 { carried += 1 }
            }
            result.append(line: line.line, count: count, spans: line.uncoveredSpans)
        }
        result.shrink()
        return (result, carried)
    }
}

/// What a report says of its carried-forward part (`coverage: N lines carried forward from the run of SHA
/// for M skipped tests`).
package struct CarriedForward: Equatable, Sendable {
    package var commit: String
    package var tests: Int
    /// Lines covered only through the skipped tests' recorded coverage.
    package var lines: Int

    package init(commit: String, tests: Int, lines: Int) {
        self.commit = commit
        self.tests = tests
        self.lines = lines
    }

    /// The sentence the terminal and the Markdown summary show.
    package var sentence: String {
        "coverage: \(lines) line(s) carried forward from the run of \(commit.prefix(12)) for \(tests) skipped test(s)"
    }
}

/// `.testscope-run.json`'s `carried` (so that `report` and `merge` render a selective run's report again):
/// each file's lines as one string, `line:count,…`, and each function's executed regions as `0,3,…`
/// (a pretty-printed map of numbers would take a line per number).
extension CarriedCoverage {
    private enum Key: String, CodingKey { case commit, tests, lines, outsideTests, functions }
    private struct StoredFunction: Codable { var count: UInt64, regions: Int, executed: String }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func counts(_ key: Key) throws -> [String: [UInt32: UInt64]] {
            try c.decode([String: String].self, forKey: key).mapValues { text in
                Dictionary(text.split(separator: ",").compactMap { pair -> (UInt32, UInt64)? in
                    let parts = pair.split(separator: ":")
                    guard parts.count == 2, let line = UInt32(parts[0]), let count = UInt64(parts[1]) else { return nil }
                    return (line, count)
                }, uniquingKeysWith: +)
            }
        }
        self.init(commit: try c.decode(String.self, forKey: .commit), tests: try c.decode(Int.self, forKey: .tests),
                  lines: try counts(.lines), outsideTests: try counts(.outsideTests))
        functions = try c.decode([String: [String: StoredFunction]].self, forKey: .functions).mapValues { byName in
            byName.mapValues { Function(count: $0.count, regions: $0.regions, executed: Set($0.executed.split(separator: ",").compactMap { Int($0) })) }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        func text(_ counts: [String: [UInt32: UInt64]]) -> [String: String] {
            counts.mapValues { $0.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",") }
        }
        try c.encode(commit, forKey: .commit)
        try c.encode(tests, forKey: .tests)
        try c.encode(text(lines), forKey: .lines)
        try c.encode(text(outsideTests), forKey: .outsideTests)
        try c.encode(functions.mapValues { byName in
            byName.mapValues { StoredFunction(count: $0.count, regions: $0.regions, executed: $0.executed.sorted().map(String.init).joined(separator: ",")) }
        }, forKey: .functions)
    }
}
