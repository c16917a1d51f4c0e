import Foundation
import TestscopeExecution

/// An output format of `--format`, for every command (`run`, `report`, `flaky`); what each writes is
/// the Kit's table (`Outputs`). The cases are in writing order: HTML, whose index links the others, last.
public enum ReportFormat: String, CaseIterable, Sendable {
    case text, json, lcov, junit, cobertura, sonarqube, markdown, html

    /// What `run` and `report` accept, in this order.
    public static let coverageFormats: [ReportFormat] = [.text, .json, .lcov, .junit, .html, .cobertura, .sonarqube, .markdown]
    /// What `testscope flaky` accepts: no coverage formats (LCOV, Cobertura, SonarQube).
    public static let flakyFormats: [ReportFormat] = [.text, .json, .junit, .html, .markdown]

    /// The formats of `--format` values (repeated and/or comma-separated; trimmed, lower-cased, the
    /// first of duplicates kept) among `supported`; `defaults` when none is given. An unknown name
    /// throws `ReportFormatError`, whose message names only the supported formats.
    public static func parse(_ values: [String], supported: [ReportFormat] = coverageFormats,
                             defaults: [ReportFormat]) throws -> [ReportFormat] {
        let names = values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
            .filter { !$0.isEmpty }
        // `--format ''` (or `--format ,`) is a mistake, not a request for the defaults.
        if names.isEmpty { if values.isEmpty { return defaults } else { throw ReportFormatError(name: "", supported: supported) } }
        var result: [ReportFormat] = []
        for name in names {
            guard let format = ReportFormat(rawValue: name), supported.contains(format) else {
                throw ReportFormatError(name: name, supported: supported)
            }
            if !result.contains(format) { result.append(format) }
        }
        return result
    }
}

/// An unknown `--format` name: a usage error (the CLI's `usage` names the command's help).
package struct ReportFormatError: LocalizedError, ClassifiedError, Equatable, Sendable, CustomStringConvertible {
    package var name: String
    package var supported: [ReportFormat]

    /// `unknown format 'pdf'; choose from: text, json, lcov, junit, html` (the CLI's wording so far).
    package var message: String {
        let choices = supported.map(\.rawValue).joined(separator: ", ")
        return name.isEmpty ? "--format names no format; choose from: \(choices)" : "unknown format '\(name)'; choose from: \(choices)"
    }

    package var description: String { message }
    package var errorDescription: String? { message }
    package var errorClass: ErrorClass { .usage }
}
