/// Sums file summaries per directory (every ancestor directory) and per target.
package enum RollUp {
    /// Every directory of every file (`Sources`, `Sources/Core`, …; `/a`, `/a/b` for an absolute
    /// path): the path before each `/` but a leading one. The files come in path order, so a file's
    /// directories are mostly the previous file's: those are kept by comparing the two paths'
    /// bytes, and only a new directory is looked up by name (splitting every path and building
    /// each prefix as a `String`, then two dictionary lookups a directory, was 10 M instructions on
    /// the main thread at 400 files).
    package static func directories(of files: [FileSummary]) -> [CoverageGroup] {
        var groups: [CoverageGroup] = []
        var index: [String: Int] = [:]
        // The previous file's path, and its directories: where each name ends in it, and its group.
        var previous: [UInt8] = []
        var chain: [(end: Int, group: Int)] = []
        for file in files {
            let path = Array(file.relativePath.utf8)
            var same = 0
            while same < path.count, same < previous.count, path[same] == previous[same] { same += 1 }
            // A directory of the previous file is this file's too when the paths agree up to its `/`
            // (then the `/` is this path's too).
            while let last = chain.last, last.end >= same { chain.removeLast() }
            var end = (chain.last?.end ?? 0) + 1
            while end < path.count {
                if path[end] == UInt8(ascii: "/") {
                    let name = String(decoding: path[0..<end], as: UTF8.self)
                    let group: Int
                    if let known = index[name] {
                        group = known
                    } else {
                        group = groups.count
                        index[name] = group
                        groups.append(CoverageGroup(name: name, files: 0, summary: CoverageSummary()))
                    }
                    chain.append((end, group))
                }
                end += 1
            }
            for (_, group) in chain {
                groups[group].files += 1
                groups[group].summary += file.summary
            }
            previous = path
        }
        return groups.sorted { $0.name < $1.name }
    }

    package static func targets(of files: [FileSummary]) -> [CoverageGroup] {
        var groups: [String: CoverageGroup] = [:]
        for file in files {
            let name = file.target ?? "(no target)"
            groups[name, default: CoverageGroup(name: name, files: 0, summary: CoverageSummary())].files += 1
            groups[name]!.summary += file.summary
        }
        return groups.values.sorted { $0.name < $1.name }
    }
}
