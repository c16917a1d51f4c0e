import Foundation

/// The schemas the tests validate JUnit and Cobertura outputs with: Testscope's own, written from the
/// consumers' documented rules (`docs/schemas`, in every checkout), and the consumers' published copies
/// when a checkout has them beside it (`../shared`, as on the project's CI; a user's clone has none).
package enum ConsumerSchemas {
    /// The repository's root (this file is `Tests/Support/ConsumerSchemas.swift`).
    package static let repoRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// For `junit.xml --junit-strict`: ours, Ant's and Jenkins xUnit's.
    package static var strictJUnit: [URL] {
        [own("junit.xsd")] + published(["junit-schemas/ant-junit.xsd", "junit-schemas/jenkins-junit-10.xsd"])
    }

    /// For `flaky-junit.xml` (Surefire's flakyFailure and rerunFailure, which Ant's schema does not know):
    /// ours and Jenkins xUnit's.
    package static var flakyJUnit: [URL] {
        [own("junit.xsd")] + published(["junit-schemas/jenkins-junit-10.xsd"])
    }

    /// For `cobertura.xml` (xmllint's `--dtdvalid`): ours and the published coverage-04 DTD.
    package static var coberturaDTD: [URL] {
        [own("cobertura-04.dtd")] + published(["coverage-04.dtd"])
    }

    private static func own(_ name: String) -> URL {
        repoRoot.appendingPathComponent("docs/schemas").appendingPathComponent(name)
    }

    private static func published(_ paths: [String]) -> [URL] {
        let shared = repoRoot.deletingLastPathComponent().appendingPathComponent("shared")
        return paths.map { shared.appendingPathComponent($0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
