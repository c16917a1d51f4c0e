import Foundation
import TestscopeCoverage
import TestscopeExecution

/// A test's function in the package's test sources, found by its id (`Module.Class/testMethod`,
/// `Module.Suite/name()`, `Module/name()`), with its body's braces and statements.
package struct TestFunctionSource: Sendable {
    /// Relative to the package root.
    package var file: String
    /// The file's lines, without their line breaks.
    package var lines: [String]
    /// Whether the file ends with a line break (a diff says so when it does not).
    package var endsWithNewline: Bool
    let tokens: [SourceToken]
    /// Indices in `tokens` of the `func` keyword and of the body's `{` and `}`.
    let funcToken: Int, open: Int, close: Int
    /// The leading blanks of the enclosing type's line (nil: a free function).
    let typeIndentation: String?

    /// A package's test sources: every `.swift` file under `Tests/`, read once.
    package struct Files: Sendable {
        package var files: [(path: String, text: String)]

        package init(files: [(path: String, text: String)]) { self.files = files }

        /// The `.swift` files under `<root>/Tests`, sorted by path (none when there is no such folder).
        package static func read(packageRoot: URL) -> Files {
            let tests = packageRoot.appendingPathComponent("Tests")
            guard let walker = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil) else { return Files(files: []) }
            var files: [(String, String)] = []
            for case let url as URL in walker where url.pathExtension == "swift" {
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                let relative = url.standardizedFileURL.path.dropFirst(packageRoot.standardizedFileURL.path.count + 1)
                files.append((String(relative), text))
            }
            return Files(files: files.sorted { $0.0 < $1.0 })
        }

        /// The test's function: inside `class`/`struct`/`extension` of its class or suite (the innermost
        /// name of a nested suite), or a free function after `@Test`; nil when it is not found once.
        package func function(of id: String) -> TestFunctionSource? {
            let (group, name) = TestIdentity.classAndName(of: id)
            let base = String(name.prefix { $0 != "(" }).replacingOccurrences(of: "`", with: "")
            // `Module.Class` → `Class`; `Module` alone → a free function.
            let typeName = group.firstIndex(of: ".").map { _ in String(group.split(separator: ".").last!) }
            var found: [TestFunctionSource] = []
            for (path, text) in files where text.contains(base) {
                found += TestFunctionSource.functions(named: base, inType: typeName, path: path, text: text)
            }
            // Swift Testing: of several candidates, the one marked `@Test`.
            if found.count > 1 { found = found.filter(\.isMarkedTest) }
            return found.count == 1 ? found[0] : nil
        }
    }

    /// The functions called `name` directly in a type called `typeName` (nil: at the top level).
    static func functions(named name: String, inType typeName: String?, path: String, text: String) -> [TestFunctionSource] {
        let tokens = SourceTokens.tokens(text, language: .swift)
        var lines = text.components(separatedBy: "\n")
        let endsWithNewline = text.hasSuffix("\n")
        if endsWithNewline { lines.removeLast() }
        // Brace depth before each token, and the type declarations' bodies.
        var depth = 0
        var depths: [Int] = []
        var typeBodies: [(open: Int, depth: Int)] = []
        var pendingType = false
        for (index, token) in tokens.enumerated() {
            depths.append(depth)
            if ["class", "struct", "extension", "actor", "enum"].contains(token.text), token.kind == .word,
               let declared = declaredName(tokens, after: index), declared == typeName {
                pendingType = true
            }
            if token.text == "{" {
                if pendingType { typeBodies.append((index, depth + 1)); pendingType = false }
                depth += 1
            } else if token.text == "}" {
                depth -= 1
            }
        }
        var result: [TestFunctionSource] = []
        for (index, token) in tokens.enumerated() where token.text == "func" && index + 1 < tokens.count {
            let word = tokens[index + 1].text.replacingOccurrences(of: "`", with: "")
            guard word == name else { continue }
            let enclosing: (open: Int, depth: Int)?
            if typeName == nil {
                guard depths[index] == 0 else { continue }
                enclosing = nil
            } else {
                guard let body = typeBodies.last(where: { $0.open < index && depths[index] == $0.depth }),
                      let typeClose = matchingBrace(tokens, body.open), index < typeClose else { continue }
                enclosing = body
            }
            guard let open = bodyOpen(tokens, after: index + 1), let close = matchingBrace(tokens, open) else { continue }
            let typeIndentation = enclosing.map { indentation(lines[Int(tokens[$0.open].start.line) - 1]) }
            result.append(TestFunctionSource(file: path, lines: lines, endsWithNewline: endsWithNewline, tokens: tokens,
                                             funcToken: index, open: open, close: close, typeIndentation: typeIndentation))
        }
        return result
    }

    /// `Name` of `class Name`, `Outer.Name` of `extension Outer.Name`: the last name of the declaration.
    static func declaredName(_ tokens: [SourceToken], after index: Int) -> String? {
        var i = index + 1
        guard i < tokens.count, tokens[i].kind == .word else { return nil }
        var name = tokens[i].text
        while i + 2 < tokens.count, tokens[i + 1].text == ".", tokens[i + 2].kind == .word {
            name = tokens[i + 2].text
            i += 2
        }
        return name.replacingOccurrences(of: "`", with: "")
    }

    /// The body's `{`: the first brace outside the signature's parentheses and brackets.
    static func bodyOpen(_ tokens: [SourceToken], after index: Int) -> Int? {
        var nesting = 0
        for i in index..<tokens.count {
            switch tokens[i].text {
            case "(", "\n(", "[", "\n[": nesting += 1
            case ")", "]": nesting -= 1
            case "{" where nesting == 0: return i
            case "}" where nesting == 0: return nil
            default: break
            }
        }
        return nil
    }

    static func matchingBrace(_ tokens: [SourceToken], _ open: Int) -> Int? {
        var depth = 0
        for i in open..<tokens.count {
            if tokens[i].text == "{" { depth += 1 } else if tokens[i].text == "}" { depth -= 1; if depth == 0 { return i } }
        }
        return nil
    }

    static func indentation(_ line: String) -> String { String(line.prefix { $0 == " " || $0 == "\t" }) }

    /// An `@Test` attribute among the tokens before `func` (up to the previous declaration).
    var isMarkedTest: Bool {
        var i = funcToken - 1
        while i >= 0, !["}", "{", ";"].contains(tokens[i].text) {
            if tokens[i].text == "@Test" { return true }
            i -= 1
        }
        return false
    }

    /// 1-based lines of the `func` keyword and of the body's braces.
    var funcLine: Int { Int(tokens[funcToken].start.line) }
    var openLine: Int { Int(tokens[open].start.line) }

    /// The leading blanks of the `func` line, and of the body's statements.
    var funcIndentation: String { Self.indentation(lines[funcLine - 1]) }
    var bodyIndentation: String {
        let first = tokens[open + 1]
        if open + 1 < close, Int(first.start.line) > openLine { return Self.indentation(lines[Int(first.start.line) - 1]) }
        // One more level than the `func` line: the file's own step from its type, else 4 spaces (a tab in a tab-indented file).
        let step = typeIndentation.flatMap { type in funcIndentation.hasPrefix(type) && funcIndentation.count > type.count
            ? String(funcIndentation.dropFirst(type.count)) : nil } ?? (funcIndentation.contains("\t") ? "\t" : "    ")
        return funcIndentation + step
    }

    /// The body's statements, each as its lines with the indentation relative to the body (the first line
    /// has none); `droppingAssertions`: without XCTest's `XCTAssert…`/`XCTFail` and Swift Testing's
    /// `#expect`/`#require` (a cleaner's checks are about itself, not the state it resets).
    package func statements(droppingAssertions: Bool) -> [[String]] {
        var result: [[String]] = []
        var i = open + 1
        while i < close {
            let start = i
            var nesting = 0
            while i < close {
                let text = tokens[i].text
                if ["(", "\n(", "[", "\n[", "{"].contains(text) { nesting += 1 }
                if [")", "]", "}"].contains(text) { nesting -= 1 }
                i += 1
                guard nesting == 0 else { continue }
                if text == ";" || i == close { break }
                if tokens[i].start.line > tokens[i - 1].end.line, !Self.continues(tokens[i - 1], tokens[i]) { break }
            }
            var end = i - 1
            if tokens[end].text == ";" { end -= 1 }
            guard end >= start else { continue }
            if droppingAssertions, Self.isAssertion(tokens[start...end]) { continue }
            result.append(text(from: start, to: end))
        }
        return result
    }

    /// A statement goes on past a line break after an operator or a comma, or before `.member`, an
    /// operator, `else` or `catch`.
    static func continues(_ last: SourceToken, _ next: SourceToken) -> Bool {
        if last.kind == .punctuation, ![")", "]", "}", "\n(", "(", "[", "\n["].contains(last.text), !last.text.hasSuffix("?"), !last.text.hasSuffix("!") {
            return true
        }
        if next.kind == .punctuation, !["(", "\n(", "[", "\n[", "{", "}", ")", "]", ";"].contains(next.text), next.text != "!" { return true }
        return next.text == "else" || next.text == "catch"
    }

    static func isAssertion(_ tokens: ArraySlice<SourceToken>) -> Bool {
        let head = tokens.first { !["try", "await", "?", "!"].contains($0.text) }?.text ?? ""
        return head.hasPrefix("XCTAssert") || head == "XCTFail" || head == "#expect" || head == "#require"
    }

    /// The source of tokens `start...end`, line by line, the first line's indentation removed from all.
    func text(from start: Int, to end: Int) -> [String] {
        let first = Int(tokens[start].start.line), last = Int(tokens[end].end.line)
        var result: [String] = []
        let startsLine = Self.indentation(lines[first - 1]).utf8.count + 1 == Int(tokens[start].start.column)
        let base = startsLine ? Self.indentation(lines[first - 1]) : bodyIndentation
        for line in first...last {
            var bytes = Array(lines[line - 1].utf8)
            if line == last { bytes = Array(bytes.prefix(Int(tokens[end].end.column) - 1)) }
            if line == first { bytes = Array(bytes.dropFirst(Int(tokens[start].start.column) - 1)) }
            var text = String(decoding: bytes, as: UTF8.self)
            if line != first { text = text.hasPrefix(base) ? String(text.dropFirst(base.count)) : text.trimmingCharacters(in: .whitespaces) }
            result.append(text)
        }
        return result
    }

    /// The file's lines with `statements` inserted at the start of the body, in the body's indentation: the
    /// `count` lines from 1-based line `start` (none: an insertion before it) are replaced by `lines`. A body
    /// that starts on the line of its `{` (`func test() { XCTAssert… }`) is split so that each statement
    /// has its own line.
    package func inserting(_ statements: [[String]]) -> (start: Int, count: Int, lines: [String]) {
        let indent = bodyIndentation
        let inserted = statements.flatMap { statement in statement.map { $0.isEmpty ? "" : indent + $0 } }
        let line = lines[openLine - 1]
        let afterOpen = Int(tokens[open].end.column) - 1
        guard Int(tokens[open + 1].start.line) == openLine else { return (openLine + 1, 0, inserted) }
        let bytes = Array(line.utf8)
        let head = String(decoding: bytes.prefix(afterOpen), as: UTF8.self)
        if Int(tokens[close].start.line) == openLine {
            // `{ body }` on one line: the body on its own line, then the `}` and what followed it.
            let closeColumn = Int(tokens[close].start.column) - 1
            let body = String(decoding: bytes[afterOpen..<closeColumn], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            let tail = String(decoding: bytes[closeColumn...], as: UTF8.self)
            return (openLine, 1, [head] + inserted + (body.isEmpty ? [] : [indent + body]) + [funcIndentation + tail])
        }
        let rest = String(decoding: bytes[afterOpen...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return (openLine, 1, [head] + inserted + [indent + rest])
    }
}
