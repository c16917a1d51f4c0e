import Foundation
import TestscopeExecution
import TestscopeRun

/// `--verify-fixes`: each proposed fix is applied to a copy of the package (its sources only), the copy
/// is rebuilt with Testscope's one build (incremental after the first), and the failing order is rerun:
/// verified only when the build succeeded and the test passed every time. Fixes whose failing orders run
/// no other patched test share one build with all of them applied; the others (and all of them when that
/// build fails) get one each. The user's package is never touched; the copy lives in the work folder and
/// is removed at the end (on an interrupt with it).
package struct FixVerifier {
    package var swift: URL
    package var packageRoot: URL
    /// Inside the output folder; removed by the caller (and on an interrupt).
    package var workFolder: URL
    /// Folders of the package not to copy (the output folder, a scratch path inside the package).
    package var excluded: [URL]
    package var extraBuildArguments: [String]
    package var testTimeout: Double?
    package var environment: [String: String]
    /// How often the failing order is rerun.
    package var reruns = 3

    package init(swift: URL, packageRoot: URL, workFolder: URL, excluded: [URL] = [], extraBuildArguments: [String] = [],
                testTimeout: Double? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.swift = swift
        self.packageRoot = packageRoot
        self.workFolder = workFolder
        self.excluded = excluded
        self.extraBuildArguments = extraBuildArguments
        self.testTimeout = testTimeout
        self.environment = environment
    }

    /// The verification of each proposal (by the same keys). `progress` hears a line per step.
    package func verify(_ proposals: [Int: FixProposal], findings: [TestFinding], progress: (String) -> Void) throws
        -> [Int: ProposedFix.Verification] {
        guard !proposals.isEmpty else { return [:] }
        let copy = workFolder.appendingPathComponent("fix-copy")
        try? FileManager.default.removeItem(at: copy)
        // After a Ctrl-C the interrupt's cleanup removes the copy: this thread parks rather than race it.
        defer { Interruption.checkpoint(); try? FileManager.default.removeItem(at: copy) }
        try PackageCopy.copy(packageRoot, to: copy, excluding: excluded + [workFolder])
        progress("verifying \(proposals.count) fix(es): building a copy of the package")
        let unpatched = build(copy)
        guard case .success = unpatched.result else {
            let why = "the package's copy did not build without the patch: " + (unpatched.firstError ?? "see the build's output")
            progress("no fix verified: " + why)
            return proposals.mapValues { _ in .notVerified(why) }
        }
        let runs = workFolder.appendingPathComponent("fix-runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        var result: [Int: ProposedFix.Verification] = [:]
        func report(_ key: Int, _ verification: ProposedFix.Verification) {
            result[key] = verification
            progress("fix \(result.count)/\(proposals.count) \(findings[key].id): " + verification.text)
        }
        // A fix whose failing order runs no other patched test reruns the same with every patch applied
        // (the others are in functions it does not run): those share one build.
        let patched = Set(proposals.keys.map { findings[$0].id })
        let apart = proposals.keys.sorted().filter { key in
            (findings[key].failingOrder ?? [findings[key].id]).allSatisfy { $0 == findings[key].id || !patched.contains($0) }
        }
        if apart.count > 1, let binary = try buildCombined(apart.map { proposals[$0]! }, copy: copy) {
            for key in apart { report(key, try rerun(findings[key], binary: binary, runs: runs)) }
        }
        // The rest (or all, when the patches together did not build), each patch alone.
        for key in proposals.keys.sorted() where result[key] == nil {
            report(key, try verify(proposals[key]!, finding: findings[key], copy: copy, runs: runs))
        }
        return result
    }

    /// The copy with every patch applied, built; nil when a file changed or the build failed (the copy is
    /// restored either way).
    func buildCombined(_ proposals: [FixProposal], copy: URL) throws -> FlakyTestBinary? {
        let files = FixProposal.combined(proposals)
        guard files.allSatisfy({ (try? String(contentsOf: copy.appendingPathComponent($0.key), encoding: .utf8)) == $0.value.original }) else {
            return nil
        }
        for (file, texts) in files { try AtomicFileWriter.write(texts.patched, to: copy.appendingPathComponent(file)) }
        defer { for (file, texts) in files { try? AtomicFileWriter.write(texts.original, to: copy.appendingPathComponent(file)) } }
        return try? build(copy).result.get()
    }

    /// The failing order rerun `reruns` times: verified only when the test passed every time.
    func rerun(_ finding: TestFinding, binary: FlakyTestBinary, runs: URL) throws -> ProposedFix.Verification {
        let executor = OrderExecutor(binary: binary, workDirectory: runs, testTimeout: testTimeout, environment: environment)
        let order = finding.failingOrder ?? [finding.id]
        var failed = 0
        for _ in 0..<reruns where try executor.execute(order).verdict(finding.id) != .pass { failed += 1 }
        return failed == 0 ? .verified(runs: reruns) : .notVerified("the failing order still fails (\(failed) of \(reruns))")
    }

    func verify(_ proposal: FixProposal, finding: TestFinding, copy: URL, runs: URL) throws -> ProposedFix.Verification {
        let file = copy.appendingPathComponent(proposal.fix.file)
        guard (try? String(contentsOf: file, encoding: .utf8)) == proposal.original else {
            return .notVerified("\(proposal.fix.file) changed since the fix was proposed")
        }
        try AtomicFileWriter.write(proposal.patched, to: file)
        // The next patch starts from the package as it is.
        defer { try? AtomicFileWriter.write(proposal.original, to: file) }
        let built = build(copy)
        let binary: FlakyTestBinary
        switch built.result {
        case let .success(value): binary = value
        case .failure: return .notVerified("the build failed: " + (built.firstError ?? "see `swift build` in a patched copy"))
        }
        return try rerun(finding, binary: binary, runs: runs)
    }

    /// Testscope's one build of the copy (scratch path inside it), with its first compiler error, paths relative to the copy.
    func build(_ copy: URL) -> (result: Result<FlakyTestBinary, Error>, firstError: String?) {
        let firstError = Locked<String?>(nil)
        let prefix = copy.path + "/"
        let builder = FlakyBuilder(swift: swift, packageRoot: copy, scratchPath: InstrumentedBuild.defaultScratchPath(packageRoot: copy),
                                   extraBuildArguments: extraBuildArguments, environment: environment)
        let result = Result { try builder.build(log: nil, echo: false, onLine: { line in
            guard line.contains("error: ") else { return }
            firstError.withLock { first in if first == nil { first = line.replacingOccurrences(of: prefix, with: "") } }
        }) }
        // A build stopped by a Ctrl-C is no build failure: park until the cleanup exits.
        Interruption.checkpoint()
        var error = firstError.withLock { $0 }
        if case let .failure(failure) = result, error == nil { error = failure.localizedDescription }
        return (result, error)
    }
}

/// A copy of a package's sources: every file and folder except hidden folders (`.build`, `.git`,
/// `.testscope`, …) and the folders given.
package enum PackageCopy {
    package static func copy(_ root: URL, to destination: URL, excluding: [URL]) throws {
        let skipped = Set(excluding.map { $0.standardizedFileURL.resolvingSymlinksInPath().path })
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            let source = root.appendingPathComponent(name)
            guard !skipped.contains(source.standardizedFileURL.resolvingSymlinksInPath().path) else { continue }
            let values = try source.resourceValues(forKeys: [.isDirectoryKey, .isSymbolicLinkKey])
            let isFolder = values.isDirectory == true && values.isSymbolicLink != true
            if isFolder {
                guard !name.hasPrefix(".") else { continue }
                try copy(source, to: destination.appendingPathComponent(name), excluding: excluding)
            } else {
                try FileManager.default.copyItem(at: source, to: destination.appendingPathComponent(name))
            }
        }
    }
}

extension ProposedFix {
    /// `cleaner's statements`, `setter's statements`, `reset of the shared state`: what the patch inserts.
    package var what: String {
        switch source {
        case .cleaner: return "cleaner's statements"
        case .setter: return "setter's statements"
        case .stateReset: return "reset of the shared state"
        }
    }
}

extension ProposedFix.Verification {
    /// `verified (3 of 3 passed)`, `not verified: …`, `not verified (--verify-fixes reruns it)`.
    package var text: String {
        switch self {
        case .notRun: return "not verified (--verify-fixes reruns it)"
        case let .verified(runs): return "verified (\(runs) of \(runs) passed)"
        case let .notVerified(why): return "not verified: \(why)"
        }
    }

    /// `not-run`, `verified`, `not-verified` (flaky.json's words).
    package var status: String {
        switch self {
        case .notRun: return "not-run"
        case .verified: return "verified"
        case .notVerified: return "not-verified"
        }
    }
}
