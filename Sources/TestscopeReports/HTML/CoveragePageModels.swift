/// `index.mustache`: the coverage index (totals, files or directories, targets).
struct IndexModel: HTMLViewModel {
    var common: PageCommon
    var facts: [FactModel]
    var totals: [RatioModel]
    var fileCount: String
    var split: Bool
    /// The files table; nil when the index lists directories instead (`split`).
    var fileTable: FileTableModel?
    var directories: [GroupRowModel]
    var directoryCount: String
    var targets: [GroupRowModel]
    /// The "Changes" summary (`--diff-base`); nil without it.
    var changes: ChangesModel? = nil
    /// The run's test outcome, linked to the Tests page; nil when the report has no test results.
    var testOutcome: TestOutcomeModel? = nil
    /// A selective run's carried-forward part (`run --affected`), said above the totals; nil otherwise.
    var carried: String? = nil

    func child(named name: String) -> Any? {
        switch name {
        case "changes": return changes.orFalse
        case "testOutcome": return testOutcome.orFalse
        case "carried": return carried.orFalse
        case "facts": return facts
        case "totals": return totals
        case "fileCount": return fileCount
        case "split": return split
        case "fileTable": return fileTable.orFalse
        case "directories": return directories
        case "directoryCount": return directoryCount
        case "targets": return targets
        case "targetCount": return String(targets.count)
        default: return common.child(named: name)
        }
    }
}

/// The index's test outcome line: `412 tests: 410 passed, 2 failed, 0 skipped`, `lo` when any failed.
struct TestOutcomeModel: HTMLViewModel {
    var text: String
    var level: String
    var href: String

    func child(named name: String) -> Any? {
        switch name {
        case "text": return text
        case "level": return level
        case "href": return href
        default: return nil
        }
    }
}

/// `file.mustache`: a source file's page: the source first, the function table folded into a one-line
/// summary. `functionRows` and `sourceLines` are the markup the row templates rendered (and escaped).
struct FilePageModel: HTMLViewModel {
    var common: PageCommon
    var path: String
    var dir: String
    var base: String
    var target: String?
    var indexHref: String
    var totals: [RatioModel]
    var notices: [String]
    var testFailures: FailureBoxModel?
    /// `#` + this prefix + `functions` is the function table (single-file report: `f3-`).
    var anchorPrefix: String
    /// The table's one-line summary (`HTMLModels.functionLabels`).
    var functionsLabel: String
    var notRunLabel: String?
    var closuresLabel: String?
    var hasFunctions: Bool
    var functionRows: String
    var uncoveredLines: String
    var partialLines: String
    /// "0" hides the legend's unknown-count key.
    var unreliableLines: String
    var sourceLines: String
    var previous: NeighbourModel?
    var next: NeighbourModel?

    func child(named name: String) -> Any? {
        switch name {
        case "path": return path
        case "dir": return dir
        case "base": return base
        case "target": return target.orFalse
        case "indexHref": return indexHref
        case "totals": return totals
        case "notices": return notices
        case "testFailures": return testFailures.orFalse
        case "anchorPrefix": return anchorPrefix
        case "functionsLabel": return functionsLabel
        case "notRunLabel": return notRunLabel.orFalse
        case "closuresLabel": return closuresLabel.orFalse
        case "hasFunctions": return hasFunctions
        case "functionRows": return functionRows
        case "uncoveredLines": return uncoveredLines
        case "partialLines": return partialLines
        case "unreliableLines": return unreliableLines == "0" ? false : unreliableLines
        case "sourceLines": return sourceLines
        case "previous": return previous.orFalse
        case "next": return next.orFalse
        default: return common.child(named: name)
        }
    }
}

/// The previous or next file of a file page.
struct NeighbourModel: HTMLViewModel {
    var path: String
    var base: String
    var href: String

    func child(named name: String) -> Any? {
        switch name {
        case "path": return path
        case "base": return base
        case "href": return href
        default: return nil
        }
    }
}

/// `directory.mustache`: one page of a directory's files (large reports).
struct DirectoryPageModel: HTMLViewModel {
    var common: PageCommon
    var path: String
    var totals: [RatioModel]
    var fileTable: FileTableModel

    func child(named name: String) -> Any? {
        switch name {
        case "path": return path
        case "totals": return totals
        case "fileTable": return fileTable
        default: return common.child(named: name)
        }
    }
}

/// `single.mustache`: the single-file report's views (markup rendered by the other templates).
struct SingleFileModel: HTMLViewModel {
    /// One view: its `id` and its rendered `body`.
    struct View: HTMLViewModel {
        var id: String?
        var body: String

        func child(named name: String) -> Any? {
            switch name {
            case "id": return id
            case "body": return body
            default: return nil
            }
        }
    }

    var index: String
    var files: [View]
    /// The Tests view, when the report has the run's test results.
    var tests: View?

    func child(named name: String) -> Any? {
        switch name {
        case "index": return index
        case "files": return files
        case "tests": return tests.orFalse
        default: return nil
        }
    }
}

/// `file-failures.mustache`: the failures located in a file, linked to their lines and the Tests page.
struct FailureBoxModel: HTMLViewModel {
    struct Item: HTMLViewModel {
        var href: String
        var lineHref: String
        var line: String
        var name: String
        var className: String
        var outcome: String
        var outcomeLabel: String
        var message: String

        func child(named name: String) -> Any? {
            switch name {
            case "href": return href
            case "lineHref": return lineHref
            case "line": return line
            case "name": return self.name
            case "className": return className
            case "outcome": return outcome
            case "outcomeLabel": return outcomeLabel
            case "message": return message
            default: return nil
            }
        }
    }

    var items: [Item]
    var testsHref: String

    func child(named name: String) -> Any? {
        switch name {
        case "count": return String(items.count)
        case "items": return items
        case "testsHref": return testsHref
        default: return nil
        }
    }
}

/// The index's "Changes" section: diff coverage against `--diff-base`, one row per changed file.
struct ChangesModel: HTMLViewModel {
    /// One changed file the report measures.
    struct Row: HTMLViewModel {
        var path: String
        var href: String
        var lines: String
        var uncovered: String
        var partial: String

        func child(named name: String) -> Any? {
            switch name {
            case "path": return path
            case "href": return href
            case "lines": return lines
            case "uncovered": return uncovered.isEmpty ? false : uncovered
            case "partial": return partial.isEmpty ? false : partial
            default: return nil
            }
        }
    }

    var summary: String
    var rows: [Row]

    func child(named name: String) -> Any? {
        switch name {
        case "summary": return summary
        case "rows": return rows.isEmpty ? false : rows
        default: return nil
        }
    }
}
