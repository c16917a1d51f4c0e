/// Sums file summaries per directory (every ancestor directory) and per target.
public enum RollUp {
    public static func directories(of files: [FileCoverage]) -> [CoverageGroup] {
        var groups: [String: CoverageGroup] = [:]
        for file in files {
            var components = file.relativePath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            if file.relativePath.hasPrefix("/") { components = components.dropFirst() }
            var prefix = file.relativePath.hasPrefix("/") ? "" : nil as String?
            for component in components {
                let name = prefix.map { $0 + "/" + component } ?? String(component)
                prefix = name
                groups[name, default: CoverageGroup(name: name, files: 0, summary: CoverageSummary())].files += 1
                groups[name]!.summary += file.summary
            }
        }
        return groups.values.sorted { $0.name < $1.name }
    }

    public static func targets(of files: [FileCoverage]) -> [CoverageGroup] {
        var groups: [String: CoverageGroup] = [:]
        for file in files {
            let name = file.target ?? "(no target)"
            groups[name, default: CoverageGroup(name: name, files: 0, summary: CoverageSummary())].files += 1
            groups[name]!.summary += file.summary
        }
        return groups.values.sorted { $0.name < $1.name }
    }
}
