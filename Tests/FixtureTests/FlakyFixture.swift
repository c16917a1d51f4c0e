import Foundation
import TestscopeExecution
import TestscopeFlakiness
import TestscopeKit
import TestscopeRun
import XCTest

/// The Flaky fixture package (sample-profiles/packages/Flaky), built once with Testscope's entry point
/// into its own scratch folder, and its planted facts.
enum FlakyFixture {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let package = repoRoot.appendingPathComponent("sample-profiles/packages/Flaky")
    static let recorded = repoRoot.appendingPathComponent("sample-profiles/recorded/Flaky")

    static var swift: URL {
        let environment = ProcessInfo.processInfo.environment
        return environment["TESTSCOPE_SWIFT"].map { URL(fileURLWithPath: $0) } ?? TestscopeExecution.Toolchain.findInPath("swift", environment: environment)!
    }

    private static let built = Locked<[URL: Result<FlakyTestBinary, Error>]>([:])

    /// Builds the fixture (or another fixture package) on first use (a no-op build when nothing changed).
    static func binary(of package: URL = package) throws -> FlakyTestBinary {
        try built.withLock { built in
            let result = built[package] ?? Result {
                try FlakyBuilder(swift: swift, packageRoot: package, scratchPath: InstrumentedBuild.defaultScratchPath(packageRoot: package))
                    .build(log: nil, echo: false)
            }
            built[package] = result
            return try result.get()
        }
    }

    /// A fresh work folder, removed by the caller.
    static func workFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("flaky-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func id(_ suffix: String) -> String { "FlakyTests." + suffix }

    // The planted cases (see the fixture's sources and sample-profiles/README.md).
    static let cacheVictim = id("CacheTests/testA_lookupStartsEmpty")
    static let cachePolluter = id("CacheTests/testB_storeKeepsValue")
    static let cacheCleaner = id("CacheTests/testC_clearEmptiesCache")
    static let formatterVictim = id("FormatterTests/testJoinsWithComma")
    static let localePolluter = id("LocaleTests/testSemicolonLocale")
    static let tsvPolluter = id("TSVExportTests/testTabSeparatedExport")
    static let setter = id("AuthTests/testSignIn")
    static let brittle = id("SessionTests/testProfileOfSignedInUser")
    static let crashVictim = id("RegistryTests/testDefaultHandlerDoubles")
    static let crashPolluter = id("ShutdownTests/testShutdownRemovesHandlers")
    static let hangWhenAsked = id("ShutdownTests/testWaitsForShutdown")
    static let nod = id("NetworkTests/testRetriesWithJitter")
    static let alwaysFails = id("LegacyTests/testAlwaysFails")
    static let skipped = id("LegacyTests/testSkippedEverywhere")
    static let counterVictim = id("CounterSuite/countStartsAtZero()")
    static let counterPolluter = id("CounterSuite/incrementsTheCount()")
    static let stableMath = id("MathTests/testAdds")

    /// Every test's expected class; every test not named here is stable.
    static let expected: [String: FlakyClassification] = [
        cacheVictim: .odVictim, formatterVictim: .odVictim, crashVictim: .odVictim, counterVictim: .odVictim,
        brittle: .odBrittle, nod: .nod, alwaysFails: .consistentFailure, skipped: .skipped,
    ]

    /// The tests `swift test list` printed when the fixture was recorded (sample-profiles/recorded/Flaky/test-list.txt).
    static func recordedList() throws -> [String] {
        try String(contentsOf: recorded.appendingPathComponent("test-list.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }
}

extension FlakyFixture {
    /// A pipeline as the CLI makes one off a terminal (no color, no progress), with its console captured.
    static func capturedPipeline(quiet: Bool = false) -> (pipeline: Pipeline, console: CapturedConsole) {
        let console = CapturedConsole()
        return (Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: quiet, console: console),
                         environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""]), console)
    }
}
