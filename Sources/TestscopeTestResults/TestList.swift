import Foundation

/// The package's tests as `swift test list` prints them: XCTest specifiers (`Module.Class/test`)
/// and Swift Testing ids (`Module.Suite/function()`).
package struct TestList: Sendable, Equatable {
    package var xctest: [String]
    package var swiftTesting: [String]

    package init(xctest: [String] = [], swiftTesting: [String] = []) {
        self.xctest = xctest
        self.swiftTesting = swiftTesting
    }

    /// Parses `swift test list` output; build chatter (`[0/1] Planning build`, warnings) is ignored.
    package static func parse(_ text: String) -> TestList {
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

    /// Which module each XCTest class is in, for XCTest lines, which omit the module on Linux.
    package var moduleForClass: XCTestModules { XCTestModules(specifiers: xctest) }

    /// SwiftPM's `--filter` / `--skip` semantics: a test runs if any filter regex matches its
    /// specifier (or there are no filters) and no skip regex does.
    package func applying(filters: [String], skips: [String]) -> TestList {
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

/// Which module an XCTest test belongs to, from the test list: Linux XCTest prints `Class.method`
/// without the module, and two test modules may each have a class of the same name (swift-nio's
/// `FileHandleTests` in `NIOFSTests` and `NIOFSIntegrationTests`).
package struct XCTestModules: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    struct Entry: Sendable, Equatable {
        var module: String
        var methods: Set<String>
    }

    /// Per class, its modules in the list's order (the order XCTest runs them), each with its methods.
    private var classes: [String: [Entry]] = [:]

    /// From `Module.Class/method` specifiers.
    package init(specifiers: [String]) {
        for specifier in specifiers {
            guard let slash = specifier.firstIndex(of: "/") else { continue }
            let qualified = specifier[..<slash]
            guard let dot = qualified.firstIndex(of: ".") else { continue }
            let (module, className) = (String(qualified[..<dot]), String(qualified[qualified.index(after: dot)...]))
            let method = String(specifier[specifier.index(after: slash)...])
            if let index = classes[className, default: []].firstIndex(where: { $0.module == module }) {
                classes[className]![index].methods.insert(method)
            } else {
                classes[className, default: []].append(Entry(module: module, methods: [method]))
            }
        }
    }

    /// `Class` → module, methods unknown.
    package init(dictionaryLiteral elements: (String, String)...) {
        for (className, module) in elements { classes[className, default: []].append(Entry(module: module, methods: [])) }
    }

    /// For the classes the launched tests name, only their modules and methods (a relaunch or an order
    /// runs some of a class's modules); other classes as they are.
    package func narrowed(to specifiers: [String]) -> XCTestModules {
        var narrowed = self
        for (className, entries) in XCTestModules(specifiers: specifiers).classes { narrowed.classes[className] = entries }
        return narrowed
    }

    /// The module of a test XCTest named without one: the only module whose class has the method;
    /// else `current`, the module the class's running suite already showed (XCTest runs a class's tests
    /// together, module by module); else the first module in the list's order whose test has no result
    /// yet (its id is not in `finished`). Nil when the list does not know the class.
    package func module(of name: XCTestName, current: String? = nil, finished: Set<String> = []) -> String? {
        guard let entries = classes[name.className] else { return nil }
        let having = entries.filter { $0.methods.contains(name.method) }
        let candidates = having.isEmpty ? entries : having
        if candidates.count == 1 { return candidates[0].module }
        if let current, candidates.contains(where: { $0.module == current }) { return current }
        return (candidates.first { !finished.contains("\($0.module).\(name.className)/\(name.method)") } ?? candidates[0]).module
    }
}
