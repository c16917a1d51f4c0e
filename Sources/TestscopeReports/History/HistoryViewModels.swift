/// `history.mustache`'s model: facts, charts (SVG drawn by `HistoryCharts`), recent changes, tests, quarantine, runs.
struct HistoryPageModel: HTMLViewModel {
    /// A chart with its legend (name, CSS colour variable).
    struct Chart: HTMLViewModel {
        var key: String
        var title: String
        var svg: String
        var legend: [(name: String, color: String)]

        func child(named name: String) -> Any? {
            switch name {
            case "key": return key
            case "title": return title
            case "svg": return svg
            case "legend": return legend.map { LabelValue(label: $0.name, value: $0.color, keys: ("name", "color")) }
            default: return nil
            }
        }
    }

    /// A test's row: verdict, sparkline, counts.
    struct TestRow: HTMLViewModel {
        var test, state, reason, sparkline, runs, failures, flipRate, sameCode, duration: String

        func child(named name: String) -> Any? {
            switch name {
            case "test": return test
            case "state": return state
            case "reason": return reason
            case "sparkline": return sparkline
            case "runs": return runs
            case "failures": return failures
            case "flipRate": return flipRate
            case "sameCode": return sameCode
            case "duration": return duration
            default: return nil
            }
        }
    }

    /// A run's row (its `id` is what the charts' points link to).
    struct RunRow: HTMLViewModel {
        var uuid, started, command, commit, shortCommit, branch, ci, exit, tests, failed, lines: String

        func child(named name: String) -> Any? {
            switch name {
            case "uuid": return uuid
            case "started": return started
            case "command": return command
            case "commit": return commit
            case "shortCommit": return shortCommit
            case "branch": return branch
            case "ci": return ci
            case "exit": return exit
            case "tests": return tests
            case "failed": return failed
            case "lines": return lines
            default: return nil
            }
        }
    }

    /// A pair under two names (`label`/`value`, or a legend's `name`/`color`).
    struct LabelValue: HTMLViewModel {
        var label: String
        var value: String
        var keys = ("label", "value")

        func child(named name: String) -> Any? {
            name == keys.0 ? label : name == keys.1 ? value : nil
        }
    }

    var package: String
    var facts: [FactModel]
    var chartNote: String
    var charts: [Chart]
    var recentRuns: String
    var recent: [(String, String)]
    var rule: String
    var testCount: String
    var tests: [TestRow]
    var more: String?
    var quarantine: String?
    var minimumSample: String
    var runs: [RunRow]

    func child(named name: String) -> Any? {
        switch name {
        case "package": return package
        case "facts": return facts
        case "chartNote": return chartNote
        case "charts": return charts
        case "recentRuns": return recentRuns
        case "recent": return recent.map { LabelValue(label: $0.0, value: $0.1) }
        case "rule": return rule
        case "testCount": return testCount
        case "tests": return tests
        case "more": return more.orFalse
        case "quarantine": return quarantine.orFalse
        case "minimumSample": return minimumSample
        case "runCount": return String(runs.count)
        case "runs": return runs
        default: return nil
        }
    }
}
