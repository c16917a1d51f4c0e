import Foundation
import XCTest

/// The toolchain's own llvm tools (beside the resolved `swift`, never Debian's LLVM 14) and
/// helpers to run them: they are the oracles of the native readers.
enum Toolchain {
    /// The directory of the resolved `swift` (`readlink -f $(command -v swift)`), or nil.
    static let binDirectory: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/swift"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                let resolved = URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
                return resolved.deletingLastPathComponent().path
            }
        }
        return FileManager.default.isExecutableFile(atPath: "/opt/swift/usr/bin/swift") ? "/opt/swift/usr/bin" : nil
    }()

    static func tool(_ name: String) throws -> String {
        guard let directory = binDirectory, FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") else {
            throw XCTSkip("\(name) not found beside swift")
        }
        return "\(directory)/\(name)"
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a process to completion; output goes through files so large outputs cannot block it.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    directory: String? = nil) throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tsp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// `llvm-profdata show --all-functions --counts`: name → (hash → counters).
    static func showCounts(_ profile: String) throws -> [String: [UInt64: [UInt64]]] {
        let output = try run(try tool("llvm-profdata"), ["show", "--all-functions", "--counts", profile])
        guard output.status == 0 else { throw ToolError("llvm-profdata show failed: \(output.stderr)") }
        var result: [String: [UInt64: [UInt64]]] = [:]
        var name: String?
        var hash: UInt64 = 0
        var entry: UInt64 = 0
        for line in output.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                name = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    Hash: 0x") {
                hash = UInt64(line.dropFirst("    Hash: 0x".count), radix: 16) ?? 0
            } else if line.hasPrefix("    Function count: ") {
                entry = UInt64(line.dropFirst("    Function count: ".count)) ?? 0
            } else if line.hasPrefix("    Block counts: ["), let name {
                let inner = line.dropFirst("    Block counts: [".count).dropLast()
                let blocks = inner.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
                result[name, default: [:]][hash] = [entry] + blocks
            }
        }
        return result
    }

    /// `llvm-profdata show --binary-ids`: the IDs, lower-case hex.
    static func showBinaryIDs(_ profile: String) throws -> Set<String> {
        let output = try run(try tool("llvm-profdata"), ["show", "--binary-ids", profile])
        let hex = output.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.count >= 16 && $0.allSatisfy(\.isHexDigit) }
        return Set(hex.map { $0.lowercased() })
    }
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Paths of the repository's fixtures, found from this file's location.
enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static func recordedProfile(_ sample: String) -> String {
        repository.appendingPathComponent("sample-profiles/recorded/\(sample)/default.profdata").path
    }
}
