import Foundation
import TestscopeTestResults

/// Real logs and event streams recorded by sample-profiles/record.sh.
enum RecordedLogs {
    static let repoRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func url(_ sample: String, _ name: String) -> URL {
        repoRoot.appendingPathComponent("sample-profiles/recorded/\(sample)/\(name)")
    }

    static func text(_ sample: String, _ name: String) throws -> String {
        try String(contentsOf: url(sample, name), encoding: .utf8)
    }

    /// The package root at recording time (meta.json).
    static func recordedRoot(_ sample: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url(sample, "meta.json"))) as? [String: Any]
        guard let root = object?["packageRoot"] as? String else { throw CocoaError(.fileReadCorruptFile) }
        return root
    }

    /// Each class's module from the recorded `swift test list`.
    static func modules(_ sample: String) throws -> XCTestModules {
        TestList.parse(try text(sample, "test-list.txt")).moduleForClass
    }
}
