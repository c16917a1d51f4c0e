import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports

/// The output formats `--format` accepts.
enum OutputFormat: String, CaseIterable {
    case text, json, lcov, junit, html
}

/// Options shared by `run` and `report`: outputs, filters, gate and toolchain.
struct CoverageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Output formats, repeatable or comma-separated: text, json, lcov, junit, html.", valueName: "formats"))
    var format: [String] = []

    @Option(name: .long, help: ArgumentHelp("Output folder (default: .testscope under the package).", valueName: "dir"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Count only files matching this glob (relative to the package root; repeatable). Brings back files excluded by default, e.g. 'Tests/**'.", valueName: "glob"))
    var include: [String] = []

    @Option(name: .long, help: ArgumentHelp("Leave out files matching this glob (repeatable).", valueName: "glob"))
    var exclude: [String] = []

    @Option(name: .long, help: ArgumentHelp("Rewrite a path prefix in the coverage data, like llvm-cov's -path-equivalence (repeatable).", valueName: "from,to"))
    var pathEquivalence: [String] = []

    @Flag(name: .long, help: "List the uncovered line ranges of each file in the text report.")
    var showMissing = false

    @Option(name: .long, help: ArgumentHelp("Percentages for colouring: below LOW red, below HIGH yellow, else green.", valueName: "low,high"))
    var watermarks: String = "50,80"

    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if total line coverage is below N percent.", valueName: "N"))
    var failUnderLines: Double?

    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if total function coverage is below N percent.", valueName: "N"))
    var failUnderFunctions: Double?

    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if total region coverage is below N percent.", valueName: "N"))
    var failUnderRegions: Double?

    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if any file's line coverage is below N percent.", valueName: "N"))
    var failUnderFile: Double?

    @Option(name: .long, help: ArgumentHelp("The llvm-cov to use (default: the one beside the resolved swift; env TESTSCOPE_LLVM_COV).", valueName: "path"))
    var llvmCov: String?

    @Option(name: .long, help: ArgumentHelp("The llvm-profdata to use (default: beside swift; env TESTSCOPE_LLVM_PROFDATA).", valueName: "path"))
    var llvmProfdata: String?

    @Flag(name: .long, help: "JUnit without testcase file/line attributes: valid against the Ant and Jenkins JUnit schemas.")
    var junitStrict = false

    @Flag(name: .long, help: "Only errors, warnings and the requested reports; no progress or notes.")
    var quiet = false

    @Flag(name: .long, help: "No colours (also when NO_COLOR is set).")
    var noColor = false

    @Flag(name: .long, help: "Write the HTML report as one self-contained index.html (for small projects and CI artifacts).")
    var htmlSingleFile = false

    @Option(name: .long, help: ArgumentHelp("Render the HTML report with the templates in this folder (copies of Testscope's templates/; missing ones are taken from the built-in set).", valueName: "dir"))
    var templates: String?

    /// Every format: the default of `run` and `report`.
    static let defaultFormats: [OutputFormat] = [.text, .json, .lcov, .junit, .html]

    func validate() throws {
        _ = try formats(default: [])
        _ = try parsedWatermarks()
        for (name, value) in [("--fail-under-lines", failUnderLines), ("--fail-under-functions", failUnderFunctions),
                              ("--fail-under-regions", failUnderRegions), ("--fail-under-file", failUnderFile)] {
            if let value, !(0...100).contains(value) { throw ValidationError("\(name) takes a percentage from 0 to 100, not \(value)") }
        }
        for pattern in include + exclude { do { _ = try Glob(pattern) } catch { throw ValidationError(error.localizedDescription) } }
        for value in pathEquivalence { do { _ = try PathEquivalence(parsing: value) } catch { throw ValidationError(error.localizedDescription) } }
    }

    func formats(default defaults: [OutputFormat]) throws -> [OutputFormat] {
        let names = format.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
            .filter { !$0.isEmpty }
        if names.isEmpty { return defaults }
        var result: [OutputFormat] = []
        for name in names {
            guard let format = OutputFormat(rawValue: name) else {
                throw ValidationError("unknown format '\(name)'; choose from: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !result.contains(format) { result.append(format) }
        }
        return result
    }

    func parsedWatermarks() throws -> Watermarks {
        let parts = watermarks.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, parts[0] <= parts[1], parts.allSatisfy({ (0...100).contains($0) }) else {
            throw ValidationError("--watermarks takes LOW,HIGH percentages with LOW <= HIGH, e.g. 50,80")
        }
        return Watermarks(low: parts[0], high: parts[1])
    }

    var gate: CoverageGate {
        CoverageGate(lines: failUnderLines, functions: failUnderFunctions, regions: failUnderRegions, perFileLines: failUnderFile)
    }

    var terminal: Terminal { Terminal.detect(quiet: quiet, noColor: noColor) }

    /// The HTML renderer with the built-in templates or the `--templates` folder (checked here, before any work).
    func htmlReport(watermarks: Watermarks) throws -> HTMLReport {
        let set = try templates.map { try HTMLTemplates.load(directory: absoluteURL($0)) } ?? HTMLTemplates.builtIn()
        return HTMLReport(templates: set, watermarks: watermarks, singleFile: htmlSingleFile, generatorVersion: Testscope.version)
    }

    func toolchain() throws -> Toolchain {
        try Toolchain.locate(overrides: Toolchain.Overrides(llvmCov: llvmCov, llvmProfdata: llvmProfdata))
    }

    func outputFolder(packageRoot: URL) -> OutputFolder {
        let path = output.map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) }
            ?? packageRoot.appendingPathComponent(".testscope")
        return OutputFolder(path.absoluteURL)
    }

    func buildOptions(packageRoot: URL, toolchain: Toolchain?, dataRecordedAt: Date?,
                      layout: PackageLayout? = nil) throws -> CoverageBuildOptions {
        let layout = layout ?? PackageLayout.discover(root: packageRoot, swift: toolchain?.swift)
        let filter = try sourceFilter(packageRoot: packageRoot, layout: layout)
        return CoverageBuildOptions(
            packageRoot: packageRoot, layout: layout, filter: filter,
            pathEquivalences: try pathEquivalence.map(PathEquivalence.init(parsing:)),
            demangler: SwiftDemangler(tool: toolchain?.swiftDemangle),
            toolchainDescription: toolchain.map { $0.llvmCov.path }, dataRecordedAt: dataRecordedAt)
    }
}

extension CoverageOptions {
    func sourceFilter(packageRoot: URL, layout: PackageLayout) throws -> SourceFilter {
        SourceFilter(root: packageRoot.path, testDirectories: layout.testDirectories,
                     include: try include.map(Glob.init), exclude: try exclude.map(Glob.init))
    }
}

/// Resolves a user-given path against the working directory.
func absoluteURL(_ path: String) -> URL {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        .absoluteURL.standardizedFileURL
}
