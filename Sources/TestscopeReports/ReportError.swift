import Foundation
import TestscopeExecution

/// Errors of the report renderers (the HTML templates): each names the template and what to do.
package enum ReportError: LocalizedError, Equatable {
    case templatesFolderNotFound(path: String)
    case templatesFolderUnreadable(path: String, reason: String)
    case noTemplatesInFolder(path: String, expected: [String])
    case templateUnreadable(path: String, reason: String)
    case templateSyntax(path: String, line: Int, column: Int, problem: String)
    /// Valid Mustache that Testscope's renderer (`CompiledTemplate`) does not render.
    case templateUnsupported(path: String)
    case missingPartial(template: String, partial: String)
    case recursivePartial(template: String, chain: [String])
    case templateTooDeep(path: String, line: Int?, depth: Int, limit: Int)
    case missingTemplate(name: String, origin: String)
    /// A streamed HTML report finished with other files than it was given (a bug of Testscope's).
    case streamMismatch(expected: Int, actual: Int)

    package var errorDescription: String? {
        switch self {
        case .templatesFolderNotFound(let path):
            return "templates folder \(path) does not exist; pass --templates a folder with copies of the files in Testscope's templates/"
        case .templatesFolderUnreadable(let path, let reason):
            return "cannot read the templates folder \(path) (\(reason)); check its permissions or pass another --templates folder"
        case .noTemplatesInFolder(let path, let expected):
            return "the templates folder \(path) holds none of Testscope's templates (\(expected.joined(separator: ", "))); "
                + "copy the ones to change from Testscope's templates/ into it"
        case .templateUnreadable(let path, let reason):
            return "cannot read template \(path) (\(reason)); fix its permissions or remove it to use the built-in one"
        case .templateSyntax(let path, let line, let column, let problem):
            return "template \(path) line \(line), column \(column): \(problem); fix the template or remove it to use the built-in one"
        case .templateUnsupported(let path):
            return "template \(path) uses a Mustache tag Testscope does not render (set delimiters, inheritance, dynamic partials, "
                + "transforms or pragmas); use variables, sections, inverted sections, partials and comments, or remove it to use the built-in one"
        case .missingPartial(let template, let partial):
            return "template \(template) includes the partial '\(partial)', which is neither in the templates folder nor built in; "
                + "add \(partial).mustache or remove the {{>\(partial)}} tag"
        case .recursivePartial(let template, let chain):
            return "template \(template) includes itself (\(chain.joined(separator: " → "))); remove the recursive partial tag"
        case .templateTooDeep(let path, let line, let depth, let limit):
            let place = line.map { " line \($0)" } ?? ""
            let what = line == nil ? "nests \(depth) levels deep with the templates that include it and the partials it includes" : "nests sections \(depth) levels deep"
            return "template \(path)\(place) \(what), more than the \(limit) Testscope renders; flatten the template or remove it to use the built-in one"
        case .missingTemplate(let name, let origin):
            return "template \(name) is missing from \(origin); restore it from Testscope's templates/"
        case .streamMismatch(let expected, let actual):
            return "internal error: the HTML report wrote \(expected) file pages but its index lists \(actual) files; "
                + "report it, and use --format without html meanwhile"
        }
    }
}

extension ReportError: ClassifiedError {
    package var errorClass: ErrorClass {
        if case .streamMismatch = self { return .internalError }
        return .badInput
    }
}
