import Foundation
import TestscopeExecution

/// The one place that finds what a SwiftPM build left: the bin folder, the test binary in it, the
/// `codecov` folder and the raw profiles (used by `run`, `flaky` and `report --build-path`).
package enum BuildArtifacts {
    /// A failed build's line that says the build folder's module cache was made at another path: the package
    /// (with its `.build`) was moved or copied, and clang refuses every precompiled module it finds there.
    static func saysBuiltElsewhere(_ line: String) -> Bool { line.contains("was compiled with module cache path") }

    /// What `run` and `flaky` say before building a moved build folder again.
    package static let builtElsewhereNote = "the build folder was made at another path (the package was moved or copied): "
        + "its module cache is removed and the build runs again"

    /// Runs a build (`build` hands each of its output lines to the closure it gets) and, when it failed because
    /// the build folder was made at another path, says so (`note`), removes the module cache of the bin folder
    /// `binPath` gives (`<scratch>/<triple>/<configuration>/ModuleCache`: the rest of a moved build folder
    /// still serves) and runs it once more. `run` and `flaky` build through it.
    package static func build(note: (String) -> Void, binPath: () -> URL?,
                              _ build: (_ onLine: @escaping @Sendable (String) -> Void) throws -> ProcessResult) throws -> ProcessResult {
        let builtElsewhere = Locked(false)
        let first = try build { line in if saysBuiltElsewhere(line) { builtElsewhere.withLock { $0 = true } } }
        guard !first.succeeded, builtElsewhere.withLock({ $0 }), let bin = binPath() else { return first }
        note(builtElsewhereNote)
        try? FileManager.default.removeItem(at: bin.appendingPathComponent("ModuleCache"))
        return try build { _ in }
    }

    /// The bin folder of a build with these arguments (`--package-path`, `-c`, `--scratch-path`, …): the
    /// `<scratch>/<configuration>` link SwiftPM keeps to it when it is there (reading a link is free; asking
    /// SwiftPM starts it, a quarter second of CPU), else `swift build --show-bin-path`.
    package static func binPath(swift: URL, buildArguments: [String], environment: [String: String]? = nil) throws -> URL {
        if let link = configurationLink(buildArguments),
           let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link.path) {
            return target.hasPrefix("/") ? URL(fileURLWithPath: target)
                : link.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL
        }
        let bin = try ProcessRunner.run(swift, ["build"] + buildArguments + ["--show-bin-path"], environment: environment)
        return URL(fileURLWithPath: bin.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `<scratch>/debug` (or the configuration of `-c`/`--configuration=`): nil without `--scratch-path`,
    /// with a `--configuration` whose value is the next argument, or for another triple or SDK, whose bin
    /// folder the link does not point to.
    static func configurationLink(_ arguments: [String]) -> URL? {
        func value(after option: String) -> String? {
            arguments.firstIndex(of: option).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        guard let scratch = value(after: "--scratch-path"),
              !arguments.contains(where: { $0.hasPrefix("--triple") || $0.hasPrefix("--swift-sdk") }) else { return nil }
        let configuration = value(after: "-c")
            ?? arguments.first { $0.hasPrefix("--configuration=") }.map { String($0.dropFirst("--configuration=".count)) }
            ?? (arguments.contains("--configuration") ? nil : "debug")
        return configuration.map { URL(fileURLWithPath: scratch).appendingPathComponent($0) }
    }

    /// The test binary SwiftPM builds in a bin folder: `<Package>PackageTests.xctest` (the newest when a
    /// renamed package left an old one; by name on a tie), the executable inside the bundle on macOS.
    package static func testBinary(in binDirectory: URL) -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: binDirectory.path)) ?? []
        let bundles = names.sorted().filter { $0.hasSuffix("PackageTests.xctest") }.map { binDirectory.appendingPathComponent($0) }
        // `max` keeps the last of equals: reversed, so a tie goes to the first name.
        guard let bundle = bundles.reversed().max(by: { modified($0) < modified($1) }) else { return nil }
        return executable(of: bundle)
    }

    /// The file inside a macOS test bundle (`X.xctest/Contents/MacOS/X`, else the first there), nil
    /// for a bundle without one; any other path (Linux's `.xctest` is the executable) as it is.
    package static func executable(of bundle: URL) -> URL? {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: bundle.path, isDirectory: &isDir), isDir.boolValue else { return bundle }
        let macos = bundle.appendingPathComponent("Contents/MacOS")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: macos.path)) ?? []).sorted()
        let name = names.first { $0 == bundle.deletingPathExtension().lastPathComponent } ?? names.first
        return name.map { macos.appendingPathComponent($0) }
    }

    /// The test binaries under a build path (`<build>/<config>`, `<build>/<triple>/<config>`, `.build/testscope/<config>`
    /// from `.build`, or a bin folder itself), newest first.
    package static func testBinaries(underBuildPath buildPath: URL) -> [URL] {
        var folders = [buildPath]
        for level1 in ((try? FileManager.default.contentsOfDirectory(atPath: buildPath.path)) ?? []).sorted() where !level1.hasPrefix(".") {
            let dir1 = buildPath.appendingPathComponent(level1)
            folders.append(dir1)
            folders += ["debug", "release"].map { dir1.appendingPathComponent($0) }
        }
        var seen = Set<String>()
        return folders.compactMap(testBinary(in:)).filter { seen.insert($0.resolvingSymlinksInPath().path).inserted }
            .sorted { modified($0) != modified($1) ? modified($0) > modified($1) : $0.path < $1.path }
    }

    /// The newest `codecov` folder under a build path (`.build/<triple>/<config>/codecov` or `.build/<config>/codecov`).
    package static func codecovDirectory(in buildPath: URL) -> URL? {
        let fm = FileManager.default
        var candidates: [URL] = []
        let direct = buildPath.appendingPathComponent("codecov")
        if fm.fileExists(atPath: direct.path) { candidates.append(direct) }
        for level1 in (try? fm.contentsOfDirectory(atPath: buildPath.path)) ?? [] where !level1.hasPrefix(".") {
            let dir1 = buildPath.appendingPathComponent(level1)
            let c1 = dir1.appendingPathComponent("codecov")
            if fm.fileExists(atPath: c1.path) { candidates.append(c1) }
            for level2 in (try? fm.contentsOfDirectory(atPath: dir1.path)) ?? [] where level2 == "debug" || level2 == "release" {
                let c2 = dir1.appendingPathComponent(level2).appendingPathComponent("codecov")
                if fm.fileExists(atPath: c2.path) { candidates.append(c2) }
            }
        }
        return candidates.max { modified($0) < modified($1) }
    }

    /// Profiles in a folder: `.profraw` files (only those modified at or after `since`, when given),
    /// and the merged `.profdata` files; each sorted by name.
    package static func profiles(in directory: URL, since: Date? = nil) -> (raw: [URL], merged: [URL]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let urls = names.sorted().map { directory.appendingPathComponent($0) }
        let raw = urls.filter { url in url.pathExtension == "profraw" && (since.map { modified(url) >= $0 } ?? true) }
        let merged = urls.filter { $0.pathExtension == "profdata" }
        return (raw, merged)
    }

    /// A file's modification date (`distantPast` when unreadable).
    package static func modified(_ url: URL) -> Date {
        InputFile.modificationDate(url.path) ?? .distantPast
    }
}
