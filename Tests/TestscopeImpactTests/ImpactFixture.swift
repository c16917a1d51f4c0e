import TestscopeCoverage
@testable import TestscopeImpact

/// A written package for the rule tests: old texts, a map whose functions' regions are the `{ … }` of
/// each `func` (as Swift's and clang's coverage mapping give them), and tests that executed some of them.
struct ImpactFixture {
    var files: [String: String]
    var layout = PackageLayout(name: "P", targets: [
        .init(name: "Core", path: "Sources/Core", isTest: false, dependencies: []),
        .init(name: "App", path: "Sources/App", isTest: false, dependencies: ["Core"]),
        .init(name: "CLib", path: "Sources/CLib", isTest: false, dependencies: []),
        .init(name: "CoreTests", path: "Tests/CoreTests", isTest: true, dependencies: ["Core"]),
        .init(name: "AppTests", path: "Tests/AppTests", isTest: true, dependencies: ["App"]),
        .init(name: "CLibTests", path: "Tests/CLibTests", isTest: true, dependencies: ["CLib"]),
    ])

    /// `executed`: test id → names of functions it executed ("" = outside tests).
    func map(executed: [String: [String]], outcomes: [String: String] = [:], lost: Set<String> = []) -> ImpactMap {
        var paths: [String] = []
        var functions: [ImpactMap.Function] = []
        var index: [String: Int] = [:]
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            guard let language = SourceLanguage.of(path: path) else { continue }
            paths.append(path)
            let tokens = SourceTokens.tokens(text, language: language)
            for (i, token) in tokens.enumerated() where (token.text == "func" || token.text == "int") && i + 2 < tokens.count
                && ["(", "<"].contains(tokens[i + 2].text) {
                let name = tokens[i + 1].text
                guard let open = tokens[(i + 1)...].firstIndex(where: { $0.text == "{" || $0.text == ";" }), tokens[open].text == "{" else { continue }
                var depth = 0, close = open
                for j in open..<tokens.count {
                    if tokens[j].text == "{" { depth += 1 }
                    if tokens[j].text == "}" { depth -= 1; if depth == 0 { close = j; break } }
                }
                functions.append(.init(file: paths.count - 1, name: name, start: tokens[open].start, end: tokens[close].end,
                                       checksum: SourceTokens.checksum(tokens, from: tokens[open].start, to: tokens[close].end)))
                index[name] = functions.count - 1
            }
        }
        let tests = executed.keys.filter { !$0.isEmpty }.sorted().map { id in
            ImpactMap.Test(id: id, outcome: outcomes[id] ?? "passed", duration: 1, functions: Set(executed[id]!.compactMap { index[$0] }),
                           usable: !lost.contains(id))
        }
        let environment = ImpactEnvironment(toolchain: "Swift 6.3.1", configuration: "debug", buildArguments: [], manifestHash: "m", resolvedHash: "r")
        return ImpactMap(commit: "c0ffee", tree: nil, dirtyFiles: [:], environment: environment, files: paths, functions: functions,
                         outsideTests: Set((executed[""] ?? []).compactMap { index[$0] }), tests: tests)
    }

    func change(_ path: String, to text: String?) -> FileChange {
        FileChange(path: path, kind: text == nil ? .deleted : files[path] == nil ? .added : .modified, oldText: files[path], newText: text)
    }

    static let core = """
    public struct Counter {
        public var value = 0
        public mutating func increment() {
            value += 1 // one step
        }
        public func doubled() -> Int {
            return value * 2
        }
        @inlinable public func tripled() -> Int {
            return value * 3
        }
    }
    """
    static let other = """
    public func greet(_ name: String) -> String {
        let parts = [1, 2].map { n in
            n * 2
        }
        return "hello \\(name) \\(parts)"
    }
    """
    static let c = """
    #include "clib.h"
    static int scale = 2;
    int twice(int x) {
        return x * scale;
    }
    """

    static var standard: ImpactFixture {
        ImpactFixture(files: ["Sources/Core/Counter.swift": core, "Sources/Core/Greet.swift": other, "Sources/CLib/clib.c": c,
                              "Sources/CLib/include/clib.h": "int twice(int x);\n", "Sources/Core/Resources/data.json": "{}"])
    }

    /// Which tests ran what: increments, doubles, greets, C, and an app test that executed nothing of Core's.
    static let executed: [String: [String]] = [
        "CoreTests.CounterTests/testIncrement": ["increment"],
        "CoreTests.CounterTests/testDoubled": ["doubled"],
        "CoreTests.GreetTests/testGreet": ["greet"],
        "CLibTests.CTests/testTwice": ["twice"],
        "AppTests.AppTests/testApp": [],
    ]

    static var allTests: [String] { executed.keys.sorted() }
}
