/// One file that differs between the map's commit and the working tree; paths relative to the package root.
package struct FileChange: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
        case added, deleted, modified
        case renamed(from: String)
    }

    /// The path now (for a deleted file: the path it had).
    package var path: String
    package var kind: Kind
    /// The text the map was recorded on; nil for an added file, or when it is not known (the file was
    /// dirty when the map was recorded and has changed since).
    package var oldText: String?
    /// The text now; nil for a deleted file.
    package var newText: String?

    package init(path: String, kind: Kind, oldText: String?, newText: String?) {
        self.path = path
        self.kind = kind
        self.oldText = oldText
        self.newText = newText
    }
}

/// Why a change reaches (or does not reach) tests: the rule and where, as `--why` shows it.
package struct ChangeEvidence: Equatable, Sendable {
    package enum Rule: Equatable, Sendable {
        /// An edit inside the body of the map's function `function` (an index into `ImpactMap.functions`).
        case bodyChanged(function: Int)
        /// An edit outside every function body: the tests that executed anything in the file.
        case structural
        /// Declarations may have changed (a new overload, override, protocol default, …): every test of
        /// every test target that depends on `target`.
        case declaration(target: String)
        /// A C-family header, or C code outside function bodies: every test of targets depending on `target`.
        case header(target: String)
        /// A file of `target` that is not source code (resources, fixtures).
        case resource(target: String)
        /// Everything runs: the manifest, the environment, a file outside every target.
        case fullRun(String)
        /// No test: comments or whitespace only, documentation.
        case noTest(String)
    }

    package var rule: Rule
    package var path: String
    /// A line in the file as it is now (the old file's for a deleted one); 0 when the whole file.
    package var line: UInt32

    package init(rule: Rule, path: String, line: UInt32) {
        self.rule = rule
        self.path = path
        self.line = line
    }

    /// `Sources/X/File.swift:42`.
    package var place: String { line > 0 ? "\(path):\(line)" : path }
}

/// What a set of file changes reaches, by rule: the input of `SelectionRules` and of the failure labels.
package struct ChangeImpact: Equatable, Sendable {
    /// Set when everything must run (the first such reason).
    package var fullRun: ChangeEvidence?
    /// Functions (indexes into the map's `functions`) whose bodies changed.
    package var functions: [Int: ChangeEvidence] = [:]
    /// Files changed outside function bodies.
    package var files: [String: ChangeEvidence] = [:]
    /// Targets whose dependents' tests all run (declarations, headers, resources), by target name.
    package var targets: [String: ChangeEvidence] = [:]
    /// Changes that reach no test (for the notes).
    package var noTest: [ChangeEvidence] = []
    /// Changed lines in the new files' coordinates (failure labels: did a test execute changed code?).
    package var changedLines: [String: Set<UInt32>] = [:]

    package init() {}

    /// Keeps the first evidence per key (the one `--why` names).
    mutating func add(_ evidence: ChangeEvidence) {
        switch evidence.rule {
        case let .bodyChanged(function): if functions[function] == nil { functions[function] = evidence }
        case .structural: if files[evidence.path] == nil { files[evidence.path] = evidence }
        case let .declaration(target), let .header(target), let .resource(target):
            if targets[target] == nil { targets[target] = evidence }
        case .fullRun: if fullRun == nil { fullRun = evidence }
        case .noTest: noTest.append(evidence)
        }
    }

    /// Nothing changed that any test can see.
    package var isEmpty: Bool { fullRun == nil && functions.isEmpty && files.isEmpty && targets.isEmpty }
}
