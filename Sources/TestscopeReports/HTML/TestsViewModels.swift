import TestscopeTestResults

/// `tests.mustache`: the Tests page's body (see `TestsHTMLModel`, which builds it).
struct TestsPageModel: HTMLViewModel {
    var package: String
    var facts: [FactModel]
    /// Prefix of every `id` on the page (`tests-` inside the single-file report).
    var prefix: String
    var counts: [CountCard]
    var summary: String
    var relaunches: String?
    var failures: [FailureModel]
    /// Tests that passed on a retry, each with its failed attempt.
    var flaky: [FailureModel] = []
    var known: [KnownIssueModel]
    var skipped: [SkippedRow]
    var slowest: [SlowRow]
    var slowestLimit: String
    /// Said when the durations measure waiting for a thread more than the tests (`durationsMostlyWaiting`).
    var slowestNote: String?
    var metrics: [MetricRow]
    var all: [ResultRow]

    func child(named name: String) -> Any? {
        switch name {
        case "package": return package
        case "facts": return facts
        case "prefix": return prefix
        case "counts": return counts
        case "summary": return summary
        case "relaunches": return relaunches.orFalse
        case "failureCount": return String(failures.count)
        case "failures": return failures
        case "flaky": return flaky
        case "hasFlaky": return !flaky.isEmpty
        case "flakyCount": return String(flaky.count)
        case "knownCount": return String(known.count)
        case "known": return known
        case "skippedCount": return String(skipped.count)
        case "skipped": return skipped
        case "hasSkipped": return !skipped.isEmpty
        case "slowestCount": return String(slowest.count)
        case "slowestLimit": return slowestLimit
        case "slowestNote": return slowestNote.orFalse
        case "slowest": return slowest
        case "hasSlowest": return !slowest.isEmpty
        case "metricCount": return String(metrics.count)
        case "metrics": return metrics
        case "hasMetrics": return !metrics.isEmpty
        case "total": return String(all.count)
        case "all": return all
        default: return nil
        }
    }
}

/// `tests-index.mustache`: the landing `index.html` of a report without coverage.
struct TestsLandingModel: HTMLViewModel {
    var package: String
    var packageRoot: String
    var counts: [CountCard]
    var summary: String
    var hasFailures: Bool
    var testsHref: String

    func child(named name: String) -> Any? {
        switch name {
        case "package": return package
        case "packageRoot": return packageRoot
        case "counts": return counts
        case "summary": return summary
        case "hasFailures": return hasFailures
        case "testsHref": return testsHref
        default: return nil
        }
    }
}

/// A count card (`tests-counts.mustache`).
struct CountCard: HTMLViewModel {
    var key: String
    var label: String
    var value: String
    var level: String

    func child(named name: String) -> Any? {
        switch name {
        case "key": return key
        case "label": return label
        case "value": return value
        case "level": return level
        default: return nil
        }
    }
}

/// What every list shows of a test (`tests-name.mustache`, badges, `data-test`).
struct TestNames: Sendable {
    var name: String
    /// Nil for Swift Testing's free functions (no class).
    var className: String?
    var id: String
    var filterName: String
    var displayName: String?
    var outcome: String
    var outcomeLabel: String

    func child(named name: String) -> Any? {
        switch name {
        case "name": return self.name
        case "className": return className.orFalse
        case "id": return id
        case "filterName": return filterName
        case "displayName": return displayName.orFalse
        case "outcome": return outcome
        case "outcomeLabel": return outcomeLabel
        default: return nil
        }
    }
}

/// A failed, crashed or timed-out test with its issues, crash evidence, warnings and output.
struct FailureModel: HTMLViewModel {
    var names: TestNames
    var anchor: String
    var framework: String
    var duration: String?
    var issues: [IssueModel]
    var warnings: [IssueModel]
    var crash: CrashModel?
    /// The test's output (`lines` joined) and its line count.
    var output: [String]
    /// The failure label (`--affected`, `--diff-base`): whether the change touched the test.
    var label: FailureLabel? = nil
    /// A flaky test's retries: "passed on attempt 2 of 2", with the history's evidence.
    var retried: String? = nil

    func child(named name: String) -> Any? {
        switch name {
        case "label": return label.map { LabelModel(label: $0) } ?? false
        case "retried": return retried.orFalse
        case "anchor": return anchor
        case "framework": return framework
        case "duration": return duration.orFalse
        case "issues": return issues
        case "warnings": return warnings
        case "hasWarnings": return !warnings.isEmpty
        case "crash": return crash.orFalse
        case "noDetail": return issues.isEmpty && crash == nil
        case "output": return output.isEmpty ? false : OutputModel(lines: output)
        default: return names.child(named: name)
        }
    }
}

/// A failure label's text and its code (`touched`, `not-touched`, `unknown`).
struct LabelModel: HTMLViewModel {
    var label: FailureLabel

    func child(named name: String) -> Any? {
        switch name {
        case "text": return label.text.prefix(1).uppercased() + label.text.dropFirst()
        case "code": return label.code
        default: return nil
        }
    }
}

/// A test's captured output.
struct OutputModel: HTMLViewModel {
    var lines: [String]

    func child(named name: String) -> Any? {
        switch name {
        case "lines": return lines.joined(separator: "\n")
        case "count": return String(lines.count)
        default: return nil
        }
    }
}

/// An expected failure with its known issues.
struct KnownIssueModel: HTMLViewModel {
    var names: TestNames
    var anchor: String
    var issues: [IssueModel]

    func child(named name: String) -> Any? {
        switch name {
        case "anchor": return anchor
        case "issues": return issues
        default: return names.child(named: name)
        }
    }
}

/// An issue: its message, details, location and (for failures) the source around it.
struct IssueModel: HTMLViewModel {
    var anchor: String
    var kind: String
    var message: String
    var details: [String]
    var location: String?
    var snippet: SnippetModel?

    func child(named name: String) -> Any? {
        switch name {
        case "anchor": return anchor
        case "kind": return kind
        case "message": return message
        case "details": return details
        case "hasDetails": return !details.isEmpty
        case "location": return location.orFalse
        case "snippet": return snippet.orFalse
        default: return nil
        }
    }
}

/// A crash's or timeout's evidence.
struct CrashModel: HTMLViewModel {
    var anchor: String
    var timedOut: Bool
    /// The time limit of a timeout, when the duration was recorded.
    var limit: String?
    var signal: String?
    var reason: String?
    var fatalError: String?
    var frames: [String]
    var location: String?
    var snippet: SnippetModel?

    func child(named name: String) -> Any? {
        switch name {
        case "anchor": return anchor
        case "timedOut": return timedOut
        case "limit": return limit.orFalse
        case "signal": return signal.orFalse
        case "reason": return reason.orFalse
        case "fatalError": return fatalError.orFalse
        case "frames": return frames
        case "hasFrames": return !frames.isEmpty
        case "location": return location.orFalse
        case "snippet": return snippet.orFalse
        default: return nil
        }
    }
}

/// `tests-snippet.mustache`: the lines around a failure, or why they cannot be shown. Each row's
/// `code` is markup: highlighted and escaped by `HTMLSourceView`.
struct SnippetModel: HTMLViewModel {
    struct Row: HTMLViewModel {
        var number: String
        var code: String
        var hit: Bool

        func child(named name: String) -> Any? {
            switch name {
            case "number": return number
            case "code": return code
            case "hit": return hit
            default: return nil
            }
        }
    }

    var path: String
    var line: String
    var rows: [Row] = []
    var notice: String?

    func child(named name: String) -> Any? {
        switch name {
        case "path": return path
        case "line": return line
        case "rows": return rows
        case "notice": return notice.orFalse
        default: return nil
        }
    }
}

/// A skipped test and its reason.
struct SkippedRow: HTMLViewModel {
    var names: TestNames
    var anchor: String
    var reason: String?

    func child(named name: String) -> Any? {
        switch name {
        case "anchor": return anchor
        case "reason": return reason.orFalse
        default: return names.child(named: name)
        }
    }
}

/// A row of the slowest tests; `href` links to its details when the page has them.
struct SlowRow: HTMLViewModel {
    var names: TestNames
    var rank: String
    var duration: String
    var href: String?

    func child(named name: String) -> Any? {
        switch name {
        case "rank": return rank
        case "duration": return duration
        case "href": return href.orFalse
        default: return names.child(named: name)
        }
    }
}

/// A row of "All tests".
struct ResultRow: HTMLViewModel {
    var names: TestNames
    var rank: String
    var durationSort: String
    var duration: String?
    var framework: String
    var href: String?
    /// The row's `id` (`PerTestAnchor`) on a per-test run's page: the first row of each test.
    var testAnchor: String? = nil
    /// The inline SVG of the test's last runs (`--history`), nil without history.
    var sparkline: String? = nil

    func child(named name: String) -> Any? {
        switch name {
        case "testAnchor": return testAnchor.orFalse
        case "sparkline": return sparkline.orFalse
        case "rank": return rank
        case "durationSort": return durationSort
        case "duration": return duration.orFalse
        case "framework": return framework
        case "href": return href.orFalse
        default: return names.child(named: name)
        }
    }
}

/// A performance metric of a test.
struct MetricRow: HTMLViewModel {
    var names: TestNames
    var metric: String
    var unit: String
    var average: String
    var averageNote: String?
    var rsd: String
    var values: String
    var valueCount: String

    func child(named name: String) -> Any? {
        switch name {
        case "metric": return metric
        case "unit": return unit
        case "average": return average
        case "averageNote": return averageNote.orFalse
        case "rsd": return rsd
        case "values": return values
        case "valueCount": return valueCount
        default: return names.child(named: name)
        }
    }
}
