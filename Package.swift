// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Testscope",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "testscope", targets: ["testscope"]),
        .library(name: "TestscopeKit", targets: ["TestscopeKit"]),
        .library(name: "TestscopeCoverage", targets: ["TestscopeCoverage"]),
        // `swift package testscope run|report|flaky …` in a package that depends on Testscope.
        .plugin(name: "TestscopePlugin", targets: ["TestscopePlugin"]),
    ],
    // Wide ranges: a package adding Testscope (for the plugin) shares this resolution graph. The lowest
    // versions are the first with the APIs used: ArgumentParser 1.5 (Swift 6 Sendable conformances),
    // swift-mustache 2.0 (MustacheLibrary/MustacheTemplate/MustacheParent, checked in its 2.0.0 sources).
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
    ],
    targets: [
        // Below everything: toolchain tools, processes, the lock, console and diagnostics, atomic files.
        .target(name: "TestscopeExecution", dependencies: ["CProcessControl"]),
        // What Swift cannot do itself: prctl (variadic), an async-signal-safe interrupt handler, the
        // table of children it kills, the saved terminal state it restores.
        .target(name: "CProcessControl"),
        // The system zlib (Debian zlib1g-dev): llvm compresses the names and filenames of coverage data.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // The system SQLite (Debian libsqlite3-dev): the run history's store (`--history FILE.sqlite`).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // The run history: the SQLite store (schema, migrations, merge), its analysis (flip rate, same-code disagreements) and text.
        .target(name: "TestscopeHistory", dependencies: ["TestscopeExecution", "CSQLite"]),
        // Native readers of llvm's coverage data: raw and indexed profiles, the binary's coverage mapping.
        .target(name: "TestscopeProfileData", dependencies: ["TestscopeExecution", "CZlib"]),
        // The coverage model: llvm-cov export reader, native engine semantics, per-line rules, functions, filters, roll-ups, gate.
        .target(name: "TestscopeCoverage", dependencies: ["TestscopeExecution", "TestscopeProfileData"]),
        // Test results: XCTest console and Swift Testing event stream parsers, JUnit import, the results model.
        .target(name: "TestscopeTestResults", dependencies: ["TestscopeExecution"]),
        // Running test binaries: build artifacts, test listing, the one test-process supervisor (process
        // group, watchdog, crash blame, relaunches), and `run`'s coordinator.
        .target(name: "TestscopeRun", dependencies: ["TestscopeExecution", "TestscopeTestResults"]),
        // Flaky tests: seeded in-process orders (generated test entry point), OD/NOD classification, polluter search,
        // the shared state of each order-dependent pair (per-test coverage of its order and a syntax index of the sources).
        .target(name: "TestscopeFlakiness", dependencies: [
            "TestscopeRun", "TestscopeTestResults", "TestscopeExecution", "TestscopeCoverage", "TestscopeProfileData",
        ]),
        // One renderer per output format (ReportRenderer / PageWriter), the HTML view models, the pages manifest.
        .target(name: "TestscopeReports", dependencies: [
            "TestscopeCoverage", "TestscopeExecution", "TestscopeTemplates", "TestscopeTestResults", "TestscopeFlakiness", "TestscopeHistory",
            .product(name: "Mustache", package: "swift-mustache"),
        ]),
        // Test impact analysis: the map (per test, the functions it executed), the change's rules, selection.
        .target(name: "TestscopeImpact", dependencies: ["TestscopeExecution", "TestscopeCoverage", "TestscopeHistory", "TestscopeProfileData", "TestscopeTestResults"]),
        // The terminal: the live view while `run`/`flaky` work (build lines, grouped warnings, the status
        // line) and the final screens, fitted to the width.
        .target(name: "TestscopeTerminal", dependencies: [
            "TestscopeReports", "TestscopeRun", "TestscopeExecution", "TestscopeTestResults", "TestscopeCoverage", "TestscopeFlakiness",
        ]),
        // The HTML report's templates and assets (top-level templates/), compiled into the binary.
        .target(
            name: "TestscopeTemplates", path: "templates",
            resources: TemplateFiles.all.map { .embedInCode($0) }
        ),
        // The pipeline as a library: typed requests (run, report, flaky) in, outcomes out.
        .target(name: "TestscopeKit", dependencies: [
            "TestscopeCoverage", "TestscopeReports", "TestscopeExecution", "TestscopeTestResults", "TestscopeFlakiness", "TestscopeRun",
            "TestscopeProfileData", "TestscopeHistory", "TestscopeTerminal", "TestscopeImpact",
        ]),
        // The thin command-line frontend: options, validation, exit statuses.
        .executableTarget(
            name: "testscope",
            dependencies: [
                "TestscopeKit", "TestscopeCoverage", "TestscopeReports", "TestscopeExecution", "TestscopeFlakiness", "TestscopeTestResults", "TestscopeHistory",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The command plugin: runs the testscope executable on the package (builds into the plugin's work folder).
        .plugin(
            name: "TestscopePlugin",
            capability: .command(
                intent: .custom(verb: "testscope", description: "Run the tests with coverage and write Testscope's reports (testscope run|report|flaky …)."),
                permissions: [.writeToPackageDirectory(reason: "Testscope writes its reports into .testscope/ (or --output) and builds into .build/.")]
            ),
            dependencies: ["testscope"]
        ),
        // Helpers shared by the test targets (golden files, seeded mutations).
        .target(name: "TestscopeTestSupport", dependencies: ["TestscopeExecution"], path: "Tests/Support"),
        // Three layers by cost. `Testscope<Module>Tests`: one per module, hermetic (recorded inputs only; no
        // swift build/test, no llvm tools, no fixture builds), seconds: `swift test --filter '^Testscope'`.
        .testTarget(name: "TestscopeExecutionTests", dependencies: ["TestscopeExecution"]),
        .testTarget(name: "TestscopeProfileDataTests", dependencies: ["TestscopeProfileData", "TestscopeExecution", "TestscopeTestSupport"], exclude: ["Corpus"]),
        .testTarget(name: "TestscopeCoverageTests", dependencies: ["TestscopeCoverage", "TestscopeExecution", "TestscopeProfileData", "TestscopeTestSupport"]),
        .testTarget(
            name: "TestscopeTestResultsTests",
            dependencies: ["TestscopeTestResults", "TestscopeReports", "TestscopeExecution", "TestscopeTestSupport"],
            exclude: ["Goldens", "EventStreamCorpus", "DarwinXCTestLogs"]
        ),
        .testTarget(name: "TestscopeRunTests", dependencies: ["TestscopeRun", "TestscopeTestResults", "TestscopeExecution"]),
        .testTarget(
            name: "TestscopeFlakinessTests",
            dependencies: ["TestscopeFlakiness", "TestscopeRun", "TestscopeReports", "TestscopeTestResults", "TestscopeExecution", "TestscopeTestSupport"]
        ),
        .testTarget(
            name: "TestscopeReportsTests",
            dependencies: [
                "TestscopeReports", "TestscopeTerminal", "TestscopeCoverage", "TestscopeExecution", "TestscopeTemplates", "TestscopeTestSupport",
                "TestscopeTestResults", "TestscopeFlakiness", .product(name: "Mustache", package: "swift-mustache"),
            ],
            exclude: ["Goldens"]
        ),
.testTarget(name: "TestscopeKitTests", dependencies: [
            "TestscopeKit", "TestscopeCoverage", "TestscopeExecution", "TestscopeFlakiness", "TestscopeReports", "TestscopeTestSupport", "TestscopeHistory",
            "TestscopeTestResults",
        ]),
        .testTarget(name: "TestscopeHistoryTests", dependencies: ["TestscopeHistory", "TestscopeExecution", "TestscopeTestSupport"]),
        .testTarget(name: "TestscopeImpactTests", dependencies: ["TestscopeImpact", "TestscopeCoverage", "TestscopeHistory", "TestscopeExecution", "TestscopeTestResults"]),
        // `FixtureTests`: the libraries in-process on real builds of the fixture packages (each built once per
        // run) and the toolchain's llvm tools as oracles, minutes.
        .testTarget(name: "FixtureTests", dependencies: [
            "TestscopeKit", "TestscopeImpact", "TestscopeHistory", "TestscopeFlakiness", "TestscopeProfileData", "TestscopeCoverage", "TestscopeReports", "TestscopeTestResults",
            "TestscopeExecution", "TestscopeTestSupport", "TestscopeRun",
        ]),
        // `EndToEndTests`: the `testscope` executable itself (exit statuses, stderr, the plugin, Chromium, tmux), minutes.
        .testTarget(name: "EndToEndTests", dependencies: ["TestscopeCoverage", "TestscopeExecution", "TestscopeHistory", "TestscopeReports", "TestscopeTestSupport"]),
    ]
)

/// The files of templates/ embedded into the binary (each needs a line in templates/BundledTemplates.swift).
enum TemplateFiles {
    static let all = [
        "layout.mustache", "index.mustache", "file.mustache", "directory.mustache", "single.mustache",
        "nav.mustache", "totals.mustache", "file-table.mustache", "functions.mustache", "function-row.mustache",
        "source-line.mustache", "ratio-cell.mustache", "flaky.mustache",
        "tests.mustache", "tests-index.mustache", "tests-counts.mustache", "tests-name.mustache", "tests-snippet.mustache", "tests-failure.mustache",
        "file-failures.mustache", "history.mustache",
        "report.css", "report.js", "head.js", "per-test.js",
    ]
}

