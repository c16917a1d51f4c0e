import TestscopeProfileData

extension CoverageRatio {
    /// llvm-cov's `getPercentCovered`: `covered / count * 100` in that order, 0 when there is nothing to cover.
    public var llvmPercent: Double { total == 0 ? 0 : Double(covered) / Double(total) * 100.0 }

    mutating func add(covered isCovered: Bool) {
        total += 1
        if isCovered { covered += 1 }
    }

    /// `LineCoverageInfo::merge` and friends: the max of each, independently.
    mutating func mergeMax(_ other: CoverageRatio) {
        total = max(total, other.total)
        covered = max(covered, other.covered)
    }
}

/// A file's `summary` as `llvm-cov export` prints it (`prepareSingleFileReport`); MC/DC is not computed.
package struct NativeFileSummary: Sendable, Equatable {
    package var lines = CoverageRatio()
    /// Instantiation groups (functions sharing a definition site count once).
    package var functions = CoverageRatio()
    package var instantiations = CoverageRatio()
    /// Code regions only.
    package var regions = CoverageRatio()
    package var branches = CoverageRatio()

    package init() {}

    /// The metrics Testscope's own model has, for comparing the two.
    package var coverageSummary: CoverageSummary {
        var summary = CoverageSummary()
        summary.lines = lines
        summary.functions = functions
        summary.instantiations = instantiations
        summary.regions = regions
        return summary
    }
}

package enum NativeSummaries {
    /// Per file of `NativeFileCoverage.uniqueSourceFiles(functions)`, in that order, its summary.
    package static func fileSummaries(_ functions: [CountedFunction]) -> [(filename: String, summary: NativeFileSummary)] {
        let index = FilenameIndex(functions)
        var builder = SegmentBuilder()
        return NativeFileCoverage.uniqueSourceFiles(functions).map { filename in
            (filename, fileSummary(filename, functions: functions, candidates: index.records(for: filename), builder: &builder))
        }
    }

    /// The export's `totals`: the sum over the files.
    package static func totals(_ summaries: [(filename: String, summary: NativeFileSummary)]) -> NativeFileSummary {
        var totals = NativeFileSummary()
        for (_, s) in summaries {
            totals.lines += s.lines
            totals.functions += s.functions
            totals.instantiations += s.instantiations
            totals.regions += s.regions
            totals.branches += s.branches
        }
        return totals
    }

    /// `getInstantiationGroups` + `FunctionCoverageSummary::get` per group + `FileCoverageSummary`.
    static func fileSummary(_ filename: String, functions: [CountedFunction], candidates: [Int],
                            builder: inout SegmentBuilder) -> NativeFileSummary {
        // Records defined in this file, keyed by the start of their first region there (std::map order).
        var groups: [(start: UInt64, members: [Int])] = []
        var groupOfStart: [UInt64: Int] = [:]
        for f in candidates {
            let function = functions[f]
            guard let main = function.mainFileID, ByteString.equal(function.filenames[main], filename),
                  // llvm asserts here (and reads past the end in a release build): a record with no
                  // region in its main file has no definition site; it is left out.
                  let first = function.regions.first(where: { $0.fileID == UInt32(main) }) else { continue }
            if let g = groupOfStart[first.start] {
                groups[g].members.append(f)
            } else {
                groupOfStart[first.start] = groups.count
                groups.append((first.start, [f]))
            }
        }
        groups.sort { $0.start < $1.start }
        var summary = NativeFileSummary()
        for group in groups {
            var lines = CoverageRatio(), regions = CoverageRatio(), branches = CoverageRatio()
            var total: UInt64 = 0
            for (i, f) in group.members.enumerated() {
                let function = functions[f]
                let member = functionSummary(function, builder: &builder)
                if i == 0 {
                    (lines, regions, branches) = (member.lines, member.regions, member.branches)
                } else {
                    lines.mergeMax(member.lines)
                    regions.mergeMax(member.regions)
                    branches.mergeMax(member.branches)
                }
                total &+= function.executionCount
                summary.instantiations.add(covered: function.executionCount > 0)
            }
            summary.lines += lines
            summary.regions += regions
            summary.branches += branches
            summary.functions.add(covered: total > 0)
        }
        return summary
    }

    /// `FunctionCoverageSummary::get` for one record: lines from the segments of its main file's
    /// regions (`getCoverageForFunction`), code regions over all its files, branches of its main file
    /// and of the files its expansions reach.
    static func functionSummary(_ function: CountedFunction, builder: inout SegmentBuilder)
        -> (lines: CoverageRatio, regions: CoverageRatio, branches: CoverageRatio) {
        var regions = CoverageRatio()
        for region in function.regions where region.kind == .code { regions.add(covered: region.count != 0) }
        guard let main = function.mainFileID.map(UInt32.init) else { return (CoverageRatio(), regions, CoverageRatio()) }
        for region in function.regions where region.fileID == main { builder.add(region) }
        var lines = CoverageRatio()
        for line in LineCoverageBuilder.lines(from: builder.build()) { lines.add(covered: line.count > 0) }
        return (lines, regions, branchSummary(function, main: main))
    }

    /// `sumBranches` over the main file's branches, then (`sumBranchExpansions`) over the branches of
    /// each expanded file, following expansions inside expansions.
    private static func branchSummary(_ function: CountedFunction, main: UInt32) -> CoverageRatio {
        var tally = CoverageRatio()
        guard !function.branches.isEmpty else { return tally }
        var files = [main]
        var visited = 0
        // Bounded: a malformed record whose expansions form a cycle is walked once per region at most.
        let limit = function.regions.count + 1
        while visited < files.count && visited <= limit {
            let file = files[visited]
            visited += 1
            for branch in function.branches where branch.fileID == file {
                if !branch.trueFolded { tally.add(covered: branch.count > 0) }
                if !branch.falseFolded { tally.add(covered: branch.falseCount > 0) }
            }
            for region in function.regions where region.kind == .expansion && region.fileID == file {
                files.append(region.expandedFileID)
            }
        }
        return tally
    }
}
