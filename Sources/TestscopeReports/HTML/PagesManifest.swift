import Foundation
import TestscopeExecution

/// A page of the HTML report that can be linked from the top bar, as the manifest records it.
package enum ReportPageKind: String, Codable, CaseIterable, Sendable {
    /// `index.html` with coverage (and its `files/`, `dirs/`, `assets/`).
    case coverage
    /// `tests.html`.
    case tests
    /// `index.html` standing in for missing coverage: counts and a link to `tests.html`; not a top-bar item.
    case testsLanding = "tests-landing"
    /// `flaky.html`.
    case flaky
    /// `history.html`: drawn from `--history FILE.sqlite` by `run` or `flaky`.
    case history

    /// Which family of commands owns the page: a command replaces its own family's pages and keeps the others'.
    package var owner: PageOwner {
        switch self {
        case .flaky: return .flaky
        case .history: return .history
        case .coverage, .tests, .testsLanding: return .testReport
        }
    }

    /// The file it is written to, relative to the output folder.
    package var file: String {
        switch self {
        case .coverage, .testsLanding: return "index.html"
        case .tests: return "tests.html"
        case .flaky: return "flaky.html"
        case .history: return "history.html"
        }
    }

    /// Its top-bar link; nil for the landing index (the brand link reaches it).
    package var navigationItem: HTMLNavigationItem? {
        switch self {
        case .coverage: return .coverage
        case .tests: return .tests
        case .flaky: return .flaky
        case .history: return .history
        case .testsLanding: return nil
        }
    }
}

/// The commands that write HTML pages into an output folder, grouped by what one invocation replaces.
package enum PageOwner: String, Sendable {
    /// `run` and `report`: one invocation writes the whole coverage + tests report anew.
    case testReport
    /// `testscope flaky`: writes `flaky.html` only.
    case flaky
    /// `run` or `flaky` with `--history`: `history.html`, kept while the file is there.
    case history
}

/// `.testscope-pages.json` in the output folder: which HTML pages Testscope wrote there and by which
/// command, so that the top bar links exactly those (never a page guessed from a file that happens
/// to be in the folder, never an HTML file sniffed). See docs/output-folder.md.
///
/// Ownership: each page kind belongs to one `PageOwner`. A command replaces every entry of its own
/// owner with the pages it writes now (so `run`/`report` without tests drops an earlier `tests.html`),
/// and keeps the other owner's entries while their files are still there (so `flaky.html` written by
/// `testscope flaky` stays linked from a fresh coverage report, and the report's pages from it).
package struct PagesManifest: Codable, Equatable, Sendable {
    package static let fileName = ".testscope-pages.json"
    package static let currentVersion = 1

    /// One page: its kind, its file (relative to the folder) and the command that wrote it.
    package struct Entry: Codable, Equatable, Sendable {
        package var kind: ReportPageKind
        package var file: String
        package var command: String

        package init(kind: ReportPageKind, file: String, command: String) {
            self.kind = kind
            self.file = file
            self.command = command
        }
    }

    package var version: Int
    package var pages: [Entry]

    package init(pages: [Entry] = []) {
        self.version = Self.currentVersion
        self.pages = pages
    }

    /// The folder's manifest; empty when there is none or it cannot be read (then no other command's
    /// page is linked: a missing link is better than a stale one).
    package static func read(in folder: OutputFolder) -> PagesManifest {
        guard let url = try? folder.file(fileName), let data = FileManager.default.contents(atPath: url.path),
              let manifest = try? JSONDecoder().decode(PagesManifest.self, from: data),
              manifest.version == currentVersion else { return PagesManifest() }
        return manifest
    }

    /// Writes the manifest atomically (readers see the old or the new one, never half).
    package func write(into folder: OutputFolder) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        try AtomicFileWriter.write(String(decoding: data, as: UTF8.self) + "\n", to: try folder.file(Self.fileName))
    }

    /// The manifest after `command` (of `owner`) writes the pages `kinds` into `folder`: the owner's
    /// earlier entries are replaced; another owner's stay while their file exists in `folder` (a
    /// page deleted by hand is not linked).
    package func replacing(_ owner: PageOwner, with kinds: [ReportPageKind], command: String, in folder: OutputFolder) -> PagesManifest {
        let kept = pages.filter { entry in
            guard entry.kind.owner != owner, let url = try? folder.file(entry.file) else { return false }
            return FileManager.default.fileExists(atPath: url.path)
        }
        let added = kinds.filter { $0.owner == owner }.map { Entry(kind: $0, file: $0.file, command: command) }
        return PagesManifest(pages: kept + added)
    }

    package func contains(_ kind: ReportPageKind) -> Bool { pages.contains { $0.kind == kind } }

    /// The manifest with `history.html` listed (before the page is written: the pages written first link it),
    /// when the command draws one (`--history`).
    package func announcingHistory(_ drawn: Bool, command: String) -> PagesManifest {
        guard drawn else { return self }
        return PagesManifest(pages: pages.filter { $0.kind != .history } + [Entry(kind: .history, file: ReportPageKind.history.file, command: command)])
    }

    /// The top bar: the listed pages in the report's order (Coverage, Tests, Flaky, History).
    package var navigation: [HTMLNavigationItem] {
        ReportPageKind.allCases.filter(contains).compactMap(\.navigationItem)
    }

    /// True when `index.html` is the tests-only landing page, not a coverage report.
    package var hasLandingIndex: Bool { contains(.testsLanding) }
}
