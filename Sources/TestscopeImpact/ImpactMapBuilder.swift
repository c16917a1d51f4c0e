import Foundation
import TestscopeCoverage
import TestscopeProfileData

/// Builds an `ImpactMap` from what `run --per-test-coverage` has after the run: the binary's mapped
/// functions, the functions each context entered (`PerTestBuilder.record`), and the tests' results.
package struct ImpactMapBuilder {
    /// One test's result as the map keeps it.
    package struct Result: Sendable {
        package var id: String
        package var outcome: String
        package var duration: Double?
        package init(id: String, outcome: String, duration: Double?) {
            self.id = id
            self.outcome = outcome
            self.duration = duration
        }
    }

    package var packageRoot: URL
    package var commit: String
    package var tree: String?
    package var dirtyFiles: [String: String]
    package var environment: ImpactEnvironment
    /// The text of a package-relative path (nil: unreadable; its functions get an empty checksum).
    package var readText: (String) -> String?

    package init(packageRoot: URL, commit: String, tree: String?, dirtyFiles: [String: String], environment: ImpactEnvironment,
                 readText: @escaping (String) -> String?) {
        self.packageRoot = packageRoot
        self.commit = commit
        self.tree = tree
        self.dirtyFiles = dirtyFiles
        self.environment = environment
        self.readText = readText
    }

    /// `contexts`/`entered`: per-test coverage's contexts and the functions each entered (same order,
    /// context 0 outside tests); `lost`: tests whose counts were lost; `results`: every result of the run.
    package func build(mapped: [MappedFunction], contexts: [PerTestCoverage.Context], entered: [Set<Int>], lost: [String],
                       results: [Result]) -> ImpactMap {
        var files: [String] = []
        var fileIndex: [String: Int] = [:]
        var functions: [ImpactMap.Function] = []
        var functionIndex: [Int: Int] = [:]
        var seen: [String: Int] = [:]
        var tokens: [Int: [SourceToken]] = [:]
        // Every function of the package's own files (tests' too), run or not: an edit inside a function
        // nobody ran is then a body change that selects nobody, not a change "outside any function".
        var relativePaths: [String: String?] = [:]
        for (index, function) in mapped.enumerated() {
            guard let (path, start, end) = extent(function, relativePaths: &relativePaths) else { continue }
            let file = fileIndex[path] ?? {
                files.append(path)
                fileIndex[path] = files.count - 1
                return files.count - 1
            }()
            let name = SwiftDemangler.symbol(in: function.pgoName ?? "")
            let key = "\(file)\u{0}\(name)"
            if let existing = seen[key] { functionIndex[index] = existing; continue }
            if tokens[file] == nil {
                tokens[file] = readText(path).map { SourceTokens.tokens($0, language: SourceLanguage.of(path: path) ?? .swift) } ?? []
            }
            functions.append(ImpactMap.Function(file: file, name: name, start: start, end: end,
                                                checksum: SourceTokens.checksum(tokens[file]!, from: start, to: end)))
            seen[key] = functions.count - 1
            functionIndex[index] = functions.count - 1
        }
        (functions, functionIndex) = Self.withoutNestedExpressions(functions, functionIndex, tokens: tokens)
        func indexes(_ set: Set<Int>) -> Set<Int> { Set(set.compactMap { functionIndex[$0] }) }

        var byTest: [String: Set<Int>] = [:]
        for (number, context) in contexts.enumerated().dropFirst() where number < entered.count {
            byTest[context.id, default: []].formUnion(indexes(entered[number]))
        }
        let lostSet = Set(lost)
        var tests: [ImpactMap.Test] = []
        var position: [String: Int] = [:]
        for result in results {
            if let at = position[result.id] {
                // Cases of one test: the worst outcome, the durations summed.
                if Self.severity(result.outcome) > Self.severity(tests[at].outcome) { tests[at].outcome = result.outcome }
                if let duration = result.duration { tests[at].duration = (((tests[at].duration ?? 0) + duration) * 1000).rounded() / 1000 }
                continue
            }
            position[result.id] = tests.count
            // Milliseconds are enough for the time a skip saves.
            let duration = result.duration.map { ($0 * 1000).rounded() / 1000 }
            tests.append(ImpactMap.Test(id: result.id, outcome: result.outcome, duration: duration,
                                        functions: byTest[result.id] ?? [],
                                        usable: result.outcome != "skipped" && !lostSet.contains(result.id) && byTest[result.id] != nil))
        }
        let outside = entered.isEmpty ? [] : indexes(entered[0])
        var map = ImpactMap(commit: commit, tree: tree, dirtyFiles: dirtyFiles, environment: environment, files: files,
                            functions: functions, outsideTests: outside, tests: tests)
        for path in dirtyFiles.keys where SourceLanguage.of(path: path) != nil {
            // Only text that still has the hash the map records (the file may change while the tests run).
            if let text = readText(path), ImpactMap.contentHash(text) == dirtyFiles[path] { map.dirtyTexts[path] = text }
        }
        return map
    }

    /// Without the functions that are an expression inside another function (autoclosures, `{ $0.x }`
    /// regions without braces): whoever ran one ran the function around it, and an edit there is that
    /// function's (`ChangeAnalyzer` places edits only in bodies between braces). Their indexes map to
    /// the function around them. Halves the map of a Swift package (every `XCTAssert` has two).
    static func withoutNestedExpressions(_ functions: [ImpactMap.Function], _ index: [Int: Int], tokens: [Int: [SourceToken]])
        -> ([ImpactMap.Function], [Int: Int]) {
        var byFile: [Int: [Int]] = [:]
        for (i, function) in functions.enumerated() { byFile[function.file, default: []].append(i) }
        var container: [Int: Int] = [:]
        var braces: [Int: (opens: Set<SourcePosition>, closes: Set<SourcePosition>)] = [:]
        for (file, list) in tokens {
            braces[file] = (Set(list.filter { $0.text == "{" }.map(\.start)), Set(list.filter { $0.text == "}" }.map(\.end)))
        }
        for (i, function) in functions.enumerated() {
            let braced = braces[function.file].map { $0.opens.contains(function.start) && $0.closes.contains(function.end) } ?? false
            guard !braced else { continue }
            // The smallest other function whose region holds this one.
            let holders = (byFile[function.file] ?? []).filter { j in
                j != i && functions[j].start <= function.start && function.end <= functions[j].end && (functions[j].start, functions[j].end) != (function.start, function.end)
            }
            if let holder = holders.min(by: { (functions[$0].start, functions[$1].end) > (functions[$1].start, functions[$0].end) }) { container[i] = holder }
        }
        // Follow chains (an autoclosure in an autoclosure) to a kept function.
        func kept(_ i: Int) -> Int { var k = i; while let next = container[k] { k = next }; return k }
        var renumber: [Int: Int] = [:]
        var result: [ImpactMap.Function] = []
        for i in functions.indices where container[i] == nil {
            renumber[i] = result.count
            result.append(functions[i])
        }
        return (result, index.mapValues { renumber[kept($0)]! })
    }

    /// The package-relative path of the function's file and the span of its code regions there; nil
    /// for a function outside the package or in its build folder (dependencies, generated code).
    func extent(_ function: MappedFunction, relativePaths: inout [String: String?]) -> (String, SourcePosition, SourcePosition)? {
        var expanded = Set<UInt32>()
        for region in function.regions where region.kind == .expansion { expanded.insert(region.expandedFileID) }
        // llvm's findMainViewFileID: the first file id no expansion targets.
        guard let main = function.filenames.indices.first(where: { !expanded.contains(UInt32($0)) }),
              let path = relativePaths[function.filenames[main]] ?? {
                  let path = relative(function.filenames[main])
                  relativePaths[function.filenames[main]] = path
                  return path
              }() else { return nil }
        var start: SourcePosition?, end: SourcePosition?
        for region in function.regions where region.kind == .code && region.fileID == UInt32(main) {
            let from = SourcePosition(line: region.lineStart, column: region.columnStart)
            let to = SourcePosition(line: region.lineEnd, column: region.columnEnd)
            if start.map({ from < $0 }) ?? true { start = from }
            if end.map({ to > $0 }) ?? true { end = to }
        }
        guard let start, let end else { return nil }
        return (path, start, end)
    }

    func relative(_ path: String) -> String? {
        // The compiler may have been given the root through a symbolic link, or its resolved path.
        let roots = [packageRoot.standardizedFileURL.path, packageRoot.standardizedFileURL.resolvingSymlinksInPath().path]
            .map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let prefix = roots.first(where: { standardized.hasPrefix($0) }) else { return nil }
        let relative = String(standardized.dropFirst(prefix.count))
        return relative.hasPrefix(".build/") || relative.contains("/.build/") ? nil : relative
    }

    /// Which of two outcomes a test of several cases keeps: a failure over a pass.
    static func severity(_ outcome: String) -> Int {
        switch outcome {
        case "crashed": return 4
        case "timed-out": return 3
        case "failed": return 2
        case "passed", "expected-failure": return 1
        default: return 0
        }
    }
}
