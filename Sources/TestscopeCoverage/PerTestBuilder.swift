import Foundation
import TestscopeExecution
import TestscopeProfileData

/// What one test process of `run --per-test-coverage` left: the counters' layout (a raw profile the
/// process wrote of itself) and its blocks of counter deltas, one per test and outside tests.
package struct PerTestProcess: Sendable {
    package var layout: RawProfile
    package var blocks: [PerTestContextBlock]

    package init(layout: RawProfile, blocks: [PerTestContextBlock]) {
        self.layout = layout
        self.blocks = blocks
    }
}

/// Counter deltas → the lines each context ran and how often, with the native engine's own rules: a context's
/// deltas become a profile of the functions it touched, and every function of the files those
/// functions map to (zero-count ones too, so that a closure nobody ran still splits its parent's
/// lines) is evaluated and swept into segments and lines exactly as the aggregate is. Lines are kept
/// only where the report has them (excluded lines, filtered files and path equivalences are
/// the report's).
package enum PerTestBuilder {
    /// `ranTests`: the ids of tests that ran to an outcome other than skipped (those without a block are lost).
    package static func build(mapped: [MappedFunction], processes: [PerTestProcess], model report: CoverageModel,
                             ranTests: [String]) -> PerTestCoverage {
        record(mapped: mapped, processes: processes, model: report, ranTests: ranTests).coverage
    }

    /// `per-test.json`'s content and, per context (in its order), the functions the context executed:
    /// indexes into `mapped` any of whose counters the context's deltas raised — test impact
    /// analysis's map (TestscopeImpact) is made of these; and per context, the regions each function ran
    /// (carried forward with the map's lines for the tests a selective run skips).
    package static func record(mapped: [MappedFunction], processes: [PerTestProcess], model report: CoverageModel,
                              ranTests: [String]) -> (coverage: PerTestCoverage, functions: [Set<Int>], regions: PerTestRegions) {
        // The report's lines, covered or not: a test that ran in a process that then crashed has its
        // deltas here, while the aggregate lost that process's profile (llvm writes it at exit).
        record(mapped: mapped, processes: processes, files: report.files.map {
            KeptFile(path: $0.path, relativePath: $0.relativePath, lines: Set($0.lines.map(\.line)), lastLine: $0.lines.last?.line ?? 0)
        }, ranTests: ranTests)
    }

    /// A file whose lines are kept: its path as the mapping names it, as the report shows it, and the lines
    /// kept (nil: every line a context ran, as for the test files `flaky`'s state search reads).
    package struct KeptFile: Sendable {
        package var path: String
        package var relativePath: String
        package var lines: Set<UInt32>?
        package var lastLine: UInt32

        package init(path: String, relativePath: String, lines: Set<UInt32>?, lastLine: UInt32) {
            self.path = path
            self.relativePath = relativePath
            self.lines = lines
            self.lastLine = lastLine
        }
    }

    /// `record` for the files given, in their order.
    package static func record(mapped: [MappedFunction], processes: [PerTestProcess], files kept: [KeptFile],
                              ranTests: [String]) -> (coverage: PerTestCoverage, functions: [Set<Int>], regions: PerTestRegions) {
        var reportIndex: [String: Int] = [:]
        for (index, file) in kept.enumerated() { reportIndex[file.path] = index }
        let linesInReport = kept.map(\.lines)
        var byName: [UInt64: [Int]] = [:]
        var byFile: [String: [Int]] = [:]
        for (index, function) in mapped.enumerated() {
            byName[function.nameRef, default: []].append(index)
            for name in Set(function.filenames) where reportIndex[name] != nil { byFile[name, default: []].append(index) }
        }

        var contexts: [PerTestCoverage.Context] = [PerTestCoverage.Context(id: PerTestCoverage.outsideTests)]
        var contextNumber: [PerTestCoverage.Context: Int] = [contexts[0]: 0]
        // file index → context → line → count
        var lines: [Int: [Int: [UInt32: UInt64]]] = [:]
        var entered: [Set<Int>] = [[]]
        var ran: [[FunctionRun]] = [[]]
        for process in processes {
            let records = process.layout.records
            let counterCount = records.map { $0.counterOffset / 8 + $0.counters.count }.max() ?? 0
            var owner = [Int32](repeating: -1, count: counterCount)
            for (index, record) in records.enumerated() {
                for slot in 0..<record.counters.count { owner[record.counterOffset / 8 + slot] = Int32(index) }
            }
            let results = Parallel.map(process.blocks.count) { b -> ([Int: [UInt32: UInt64]], Set<Int>, [FunctionRun]) in
                linesRun(by: process.blocks[b], records: records, owner: owner, mapped: mapped, byName: byName,
                         byFile: byFile, reportIndex: reportIndex, linesInReport: linesInReport)
            }
            for (block, (fileLines, functions, functionRuns)) in zip(process.blocks, results) {
                let context = Self.context(of: block.id)
                let number = contextNumber[context] ?? {
                    contexts.append(context)
                    entered.append([])
                    ran.append([])
                    contextNumber[context] = contexts.count - 1
                    return contexts.count - 1
                }()
                entered[number].formUnion(functions)
                ran[number] += functionRuns
                // A context seen in two processes (outside tests: the XCTest and the Swift Testing one) adds up.
                for (file, counts) in fileLines { lines[file, default: [:]][number, default: [:]].merge(counts, uniquingKeysWith: &+) }
            }
        }
        let recorded = Set(contexts.map(\.id))
        var lost: [String] = []
        for id in ranTests where !recorded.contains(id) && !lost.contains(id) { lost.append(id) }
        // Every report file, those no test ran too: "no test ran it" is then told from "not a source file".
        let files = kept.indices.map { index -> PerTestCoverage.File in
            let runs = lines[index] ?? [:]
            return PerTestCoverage.File(
                path: kept[index].relativePath, lastLine: kept[index].lines == nil ? runs.values.flatMap(\.keys).max() ?? 0 : kept[index].lastLine,
                runs: runs.keys.sorted().compactMap { context in
                    let counts = runs[context]!
                    guard !counts.isEmpty else { return nil }
                    return PerTestCoverage.Run(context: context, lines: PerTestCoverage.text(PerTestCoverage.ranges(of: Set(counts.keys))),
                                               counts: counts.keys.sorted().map { String(counts[$0]!) }.joined(separator: ","))
                })
        }
        var regions = PerTestRegions()
        var fileIndex: [String: Int] = [:], nameIndex: [String: Int] = [:]
        for functionRuns in ran {
            regions.append(functionRuns.map { (kept[$0.file].relativePath, $0.name, $0.count, $0.regions, $0.executed) },
                           files: &fileIndex, names: &nameIndex)
        }
        return (PerTestCoverage(contexts: contexts, lost: lost, files: files), entered, regions)
    }

    /// A function one block ran: its report file's index, its name, entry count and executed code regions.
    typealias FunctionRun = (file: Int, name: String, count: UInt64, regions: Int, executed: [Int])

    /// A block's id as `swift test list` names the test: Swift Testing's ids lose their source location
    /// (`Module.Suite/test()/File.swift:4:2` → `Module.Suite/test()`); `\t<n>` is the case number.
    package static func context(of blockID: String) -> PerTestCoverage.Context {
        let parts = blockID.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        var id = String(parts[0])
        if let slash = id.lastIndex(of: "/"), id[id.index(after: slash)...].range(of: #"\.swift:\d+:\d+$"#, options: .regularExpression) != nil {
            id = String(id[..<slash])
        }
        return PerTestCoverage.Context(id: id, testCase: parts.count == 2 ? Int(parts[1]) : nil)
    }

    /// The report lines one block ran, with their counts, by report file index; the functions it
    /// entered (indexes into `mapped`); and the code regions each function it ran executed.
    static func linesRun(by block: PerTestContextBlock, records: [RawProfileRecord], owner: [Int32], mapped: [MappedFunction],
                         byName: [UInt64: [Int]], byFile: [String: [Int]], reportIndex: [String: Int],
                         linesInReport: [Set<UInt32>?]) -> ([Int: [UInt32: UInt64]], Set<Int>, [FunctionRun]) {
        var touched: [Int: [UInt64]] = [:]
        for (index, delta) in zip(block.indexes, block.deltas) where Int(index) < owner.count {
            let record = Int(owner[Int(index)])
            guard record >= 0 else { continue }
            let slot = Int(index) - records[record].counterOffset / 8
            touched[record, default: [UInt64](repeating: 0, count: records[record].counters.count)][slot] &+= delta
        }
        var functions: [UInt64: [UInt64: [UInt64]]] = [:]
        var files = Set<String>()
        var entered = Set<Int>()
        for (record, counts) in touched {
            functions[records[record].nameRef, default: [:]][records[record].funcHash] = counts
            for function in byName[records[record].nameRef] ?? [] {
                // Any counter, not only the entry's: an async function or a closure resumed in a later test
                // runs there without being entered there.
                if counts.contains(where: { $0 > 0 }), mapped[function].funcHash == records[record].funcHash { entered.insert(function) }
                for name in mapped[function].filenames where reportIndex[name] != nil { files.insert(name) }
            }
        }
        guard !files.isEmpty else { return ([:], entered, []) }
        let subset = Set(files.flatMap { byFile[$0] ?? [] }).sorted()
        let evaluated = NativeFunctionRecords.build(subset.map { mapped[$0] }, counters: ProfileCounters(functions: functions))
        var result: [Int: [UInt32: UInt64]] = [:]
        for file in NativeFileCoverage.files(evaluated.functions) {
            guard files.contains(file.filename), let index = reportIndex[file.filename] else { continue }
            var kept: [UInt32: UInt64] = [:]
            for line in LineCoverageBuilder.lines(from: file.segments ?? []) where line.isCovered && linesInReport[index]?.contains(line.line) ?? true {
                kept[line.line] = line.count
            }
            if !kept.isEmpty { result[index] = kept }
        }
        // Regions as `FunctionRecord` keeps them: the code regions in the function's main file, in mapping order.
        var functionRuns: [FunctionRun] = []
        for function in evaluated.functions {
            guard let main = function.mainFileID, let index = reportIndex[function.filenames[main]] else { continue }
            var executed: [Int] = [], position = 0
            for region in function.regions where region.kind == .code && region.fileID == UInt32(main) {
                if region.count > 0 && !region.isUnreliable { executed.append(position) }
                position += 1
            }
            if !executed.isEmpty { functionRuns.append((index, function.name, function.executionCount, position, executed)) }
        }
        return (result, entered, functionRuns)
    }
}
