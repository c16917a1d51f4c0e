import ArgumentParser

/// The `testscope` command: coverage and test results for Swift packages.
@main
struct Testscope: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "testscope",
        abstract: "Run a Swift package's tests with coverage and report exact per-line, per-function coverage.",
        discussion: """
        Exit status: 0 success; 1 tests failed; 2 coverage below a --fail-under threshold; \
        3 flaky tests (testscope flaky --fail-on-flaky); 64 bad usage; 65 bad input (missing, unreadable or invalid files, wrong toolchain); 70 internal error.
        """,
        version: version,
        subcommands: [Run.self, Report.self, Flaky.self]
    )
}
