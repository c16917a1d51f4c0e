import Foundation
import TestscopeCoverage
import TestscopeExecution

/// Testscope's commands as a library: a request in, an `Outcome` out; everything the user reads
/// goes through `terminal` (its console is the process's streams, or memory in tests) and every
/// file into the request's output folder.
public struct Pipeline: Sendable {
    public var terminal: Terminal
    /// The environment the commands read (GitHub Actions variables, `TESTSCOPE_SWIFT`, …).
    public var environment: [String: String]

    public init(terminal: Terminal, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.terminal = terminal
        self.environment = environment
    }
}

extension Pipeline {
    /// The package `folder` is in (the nearest folder with a Package.swift, as `swift build` finds it).
    static func packageRoot(_ folder: URL) throws -> URL {
        guard let root = PackageLayout.root(containing: folder) else { throw CoverageError.notAPackage(path: folder.path) }
        return root
    }
}
