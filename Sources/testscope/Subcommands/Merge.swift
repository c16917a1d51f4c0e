import ArgumentParser
import Foundation
import TestscopeKit

extension Testscope {
    /// `testscope merge`: the output folders of `run --shard K/N` reported as one run.
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Merge the output folders of 'testscope run --shard K/N' into one report, as if one run had made it.",
            discussion: """
            Sums the shards' raw profiles with the test binary they ran (--binary, --build-path, else the binary the \
            shards recorded or one in the package's .build with their build ID), combines their test results and applies \
            every format and gate once. Shards of different builds, a shard given twice or a test in two shards: exit 65. \
            Missing shards: a warning. Paths from other machines map with --path-equivalence (docs/shards.md). \
            --history appends the merged run (give it to merge, not to the shards).
            """)

        @Argument(help: ArgumentHelp("The shards' output folders (of 'testscope run --shard K/N --output DIR').", valueName: "dir"))
        var shards: [String] = []
        @Option(name: .long, help: ArgumentHelp("The package root (default: the current directory).", valueName: "dir"))
        var packagePath: String = "."
        @Option(name: .long, help: ArgumentHelp("The test binary the shards ran (default: the one they recorded, else one in the package's .build).", valueName: "file"))
        var binary: String?
        @Option(name: .long, help: ArgumentHelp("A SwiftPM build folder to find the shards' test binary in.", valueName: "dir"))
        var buildPath: String?
        @OptionGroup var outputOptions: OutputOptions
        @OptionGroup var coverage: CoverageOptions
        @OptionGroup var history: HistoryOption

        func validate() throws {
            if shards.isEmpty { throw ValidationError("merge needs the shards' output folders (testscope merge DIR… --output DIR)") }
            if binary != nil && buildPath != nil { throw ValidationError("use one of --binary and --build-path") }
            _ = try outputOptions.formats()
        }

        func run() throws {
            try execute(outputOptions) { pipeline in
                let settings = try coverage.settings(outputOptions.settings(history: history))
                var request = MergeRequest(packageRoot: absoluteURL(packagePath), shards: shards.map(absoluteURL),
                                           settings: settings)
                (request.binary, request.buildPath) = (binary.map(absoluteURL), buildPath.map(absoluteURL))
                return try pipeline.merge(request)
            }
        }
    }
}
