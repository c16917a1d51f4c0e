import Foundation

/// The package's tests as `swift test list` prints them: XCTest specifiers (`Module.Class/test`)
/// and Swift Testing ids (`Module.Suite/function()`).
public struct TestList: Sendable, Equatable {
    public var xctest: [String]
    public var swiftTesting: [String]

    public init(xctest: [String] = [], swiftTesting: [String] = []) {
        self.xctest = xctest
        self.swiftTesting = swiftTesting
    }

    /// Parses `swift test list` output; build chatter (`[0/1] Planning build`, warnings) is ignored.
    public static func parse(_ text: String) -> TestList {
        var list = TestList()
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("["), !line.contains(" "), line.contains(".") else { continue }
            if line.contains("(") {
                list.swiftTesting.append(SwiftTestingEventStream.split(line).specifier)
            } else if line.contains("/") {
                list.xctest.append(line)
            }
        }
        return list
    }

    /// `Class` → module for XCTest lines, which omit the module on Linux.
    public var moduleForClass: [String: String] {
        var map: [String: String] = [:]
        for specifier in xctest {
            guard let slash = specifier.firstIndex(of: "/") else { continue }
            let qualified = specifier[..<slash]
            guard let dot = qualified.firstIndex(of: ".") else { continue }
            map[String(qualified[qualified.index(after: dot)...])] = String(qualified[..<dot])
        }
        return map
    }

    /// SwiftPM's `--filter` / `--skip` semantics: a test runs if any filter regex matches its
    /// specifier (or there are no filters) and no skip regex does.
    public func applying(filters: [String], skips: [String]) -> TestList {
        let f = filters.compactMap { try? NSRegularExpression(pattern: $0) }
        let s = skips.compactMap { try? NSRegularExpression(pattern: $0) }
        func keep(_ id: String) -> Bool {
            let range = NSRange(id.startIndex..., in: id)
            if !f.isEmpty, !f.contains(where: { $0.firstMatch(in: id, range: range) != nil }) { return false }
            return !s.contains { $0.firstMatch(in: id, range: range) != nil }
        }
        return TestList(xctest: xctest.filter(keep), swiftTesting: swiftTesting.filter(keep))
    }
}
