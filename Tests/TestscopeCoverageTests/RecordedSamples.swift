import Foundation
import XCTest
@testable import TestscopeCoverage

/// The real recordings in sample-profiles/recorded (see sample-profiles/README.md).
enum RecordedSamples {
    static let repoRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Every recorded single-package sample: an export, `llvm-cov show` and lcov output of one profile.
    static let names: [String] = {
        let recorded = repoRoot.appendingPathComponent("sample-profiles/recorded")
        let all = (try? FileManager.default.contentsOfDirectory(atPath: recorded.path)) ?? []
        return all.sorted().filter { sample in
            ["coverage.json", "show.txt", "lcov.info", "meta.json"].allSatisfy {
                FileManager.default.fileExists(atPath: recorded.appendingPathComponent("\(sample)/\($0)").path)
            }
        }
    }()

    static func file(_ sample: String, _ name: String) -> URL {
        repoRoot.appendingPathComponent("sample-profiles/recorded/\(sample)/\(name)")
    }

    static func packageRoot(_ sample: String) -> URL {
        repoRoot.appendingPathComponent("sample-profiles/packages/\(sample)")
    }

    /// The package root at recording time (exports hold absolute paths from then).
    static func recordedRoot(_ sample: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file(sample, "meta.json"))) as? [String: Any]
        return try XCTUnwrap(object?["packageRoot"] as? String)
    }

    /// Every file's segments, read with Testscope's reader.
    static func segments(_ sample: String) throws -> [String: [ExportSegment]] {
        var result: [String: [ExportSegment]] = [:]
        _ = try LLVMCovExportReader(onFile: { result[$0.filename] = $0.segments ?? [] }, onFunction: { _ in })
            .read(file(sample, "coverage.json"))
        return result
    }

    /// `llvm-cov show` text: per file, per line, the count column as printed ("" = not executable).
    /// Rows of instantiation sub-views (prefixed with `|`) repeat lines and are skipped.
    static func showCounts(_ sample: String) throws -> [String: [Int: String]] {
        let text = try String(contentsOf: file(sample, "show.txt"), encoding: .utf8)
        var files: [String: [Int: String]] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("/") && line.hasSuffix(":") {
                current = String(line.dropLast())
                files[current!] = [:]
                continue
            }
            let columns = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard let current, columns.count == 3,
                  let number = Int(columns[0].trimmingCharacters(in: .whitespaces)) else { continue }
            files[current]![number] = columns[1].trimmingCharacters(in: .whitespaces)
        }
        return files
    }

    /// `llvm-cov export -format=lcov` DA lines: exact counts per file and line.
    /// A counter race: lcov export prints the wrapped negative count (≥ 2^63) where the JSON export
    /// writes 2^63−1 and Testscope says "unknown" (`LineCoverage.unreliableCount`).
    static func unknownIfWrapped(_ count: UInt64) -> UInt64 { count >= 1 << 63 ? LineCoverage.unreliableCount : count }

    /// `llvm-cov show`'s printed count for a line Testscope calls unknown: a wrapped negative (≥ 9.22E).
    static func isWrapped(_ printed: String) -> Bool {
        printed.hasSuffix("E") && (Double(printed.dropLast()) ?? 0) >= 9.2
    }

    static func lcovCounts(_ sample: String) throws -> [String: [Int: UInt64]] {
        let text = try String(contentsOf: file(sample, "lcov.info"), encoding: .utf8)
        var files: [String: [Int: UInt64]] = [:]
        var current = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("SF:") { current = String(line.dropFirst(3)); files[current] = [:] }
            if line.hasPrefix("DA:") {
                let parts = line.dropFirst(3).split(separator: ",")
                if parts.count >= 2, let n = Int(parts[0]), let c = UInt64(parts[1]) { files[current]![n] = unknownIfWrapped(c) }
            }
        }
        return files
    }

    /// The function records of the export, decoded with Foundation as an independent reference.
    static func exportFunctions(_ sample: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file(sample, "coverage.json"))) as? [String: Any]
        let data = try XCTUnwrap(object?["data"] as? [[String: Any]])
        return try XCTUnwrap(data.first?["functions"] as? [[String: Any]])
    }

    /// llvm's `formatCount`: counts of four digits or more abbreviated (`1.50k`).
    static func llvmFormatCount(_ n: UInt64) -> String {
        let number = String(n)
        let length = number.count
        if length <= 3 { return number }
        let integerLength = length % 3 == 0 ? 3 : length % 3
        var result = String(number.prefix(integerLength))
        if integerLength != 3 {
            result += "." + number.dropFirst(integerLength).prefix(3 - integerLength)
        }
        let units = Array(" kMGTPEZY")
        result.append(units[(length - 1) / 3])
        return result
    }
}
