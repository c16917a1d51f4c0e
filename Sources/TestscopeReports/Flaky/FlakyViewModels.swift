/// `flaky.mustache`: the Flaky page's body (built by `FlakyHTMLPage.model`).
struct FlakyPageModel: HTMLViewModel {
    /// A classification's count card.
    struct Count: HTMLViewModel {
        var name: String
        var count: String

        func child(named name: String) -> Any? {
            switch name {
            case "name": return self.name
            case "count": return count
            default: return nil
            }
        }
    }

    /// A detection run: its order, replay command and counts.
    struct Run: HTMLViewModel {
        var index: String
        var label: String
        var tests: [String]
        var replay: String
        /// `3 passed, 1 failed, 0.52 s` (from `RunTally`).
        var summary: String

        func child(named name: String) -> Any? {
            switch name {
            case "index": return index
            case "label": return label
            case "tests": return tests
            case "replay": return replay
            case "summary": return summary
            default: return nil
            }
        }
    }

    /// A test's row of the outcome matrix; `anchor` links to its evidence when it is shown.
    struct MatrixRow: HTMLViewModel {
        var id: String
        var anchor: String?
        var cells: [Cell]

        func child(named name: String) -> Any? {
            switch name {
            case "id": return id
            case "anchor": return anchor.orFalse
            case "cells": return cells
            default: return nil
            }
        }
    }

    /// A cell of the outcome matrix.
    struct Cell: HTMLViewModel {
        var outcome: String
        var mark: String
        var title: String

        func child(named name: String) -> Any? {
            switch name {
            case "outcome": return outcome
            case "mark": return mark
            case "title": return title
            default: return nil
            }
        }
    }

    var package: String
    var facts: [FactModel]
    var counts: [Count]
    var findings: [FindingModel]
    var runs: [Run]
    var matrix: [MatrixRow]
    var seed: String
    /// What the stable tests' passes rule out (`FlakyReport.stableConfidence`), the terminal's words.
    var stableConfidence: String?

    func child(named name: String) -> Any? {
        switch name {
        case "package": return package
        case "stableConfidence": return stableConfidence
        case "facts": return facts
        case "counts": return counts
        case "findings": return findings
        case "hasFindings": return !findings.isEmpty
        case "runCount": return String(runs.count)
        case "runs": return runs
        case "matrix": return matrix
        case "seed": return seed
        default: return nil
        }
    }
}

/// A test that is not stable: classification, culprits, reproduction commands and evidence.
struct FindingModel: HTMLViewModel {
    /// A test of an order; `isSelf` marks the finding's own test.
    struct OrderTest: HTMLViewModel {
        var name: String
        var isSelf: Bool

        func child(named name: String) -> Any? {
            switch name {
            case "name": return self.name
            case "self": return isSelf
            default: return nil
            }
        }
    }

    /// A failing or passing order.
    struct Order: HTMLViewModel {
        var tests: [OrderTest]

        func child(named name: String) -> Any? { name == "tests" ? tests : nil }
    }

    /// A failure in a detection run.
    struct Failure: HTMLViewModel {
        var run: String
        var outcome: String
        var message: String
        var location: String?

        func child(named name: String) -> Any? {
            switch name {
            case "run": return run
            case "outcome": return outcome
            case "message": return message
            case "location": return location.orFalse
            default: return nil
            }
        }
    }

    /// A confirmation or search step: its order and verdicts.
    struct Evidence: HTMLViewModel {
        var label: String
        var verdicts: String
        var tests: [OrderTest]

        func child(named name: String) -> Any? {
            switch name {
            case "label": return label
            case "verdicts": return verdicts
            case "tests": return tests
            default: return nil
            }
        }
    }

    /// A proposed fix: what it inserts, where, whether a rerun verified it, and its diff.
    struct Fix: HTMLViewModel {
        var summary: String
        var file: String
        var status: String
        var diff: String

        func child(named name: String) -> Any? {
            switch name {
            case "summary": return summary
            case "file": return file
            case "status": return status
            case "diff": return diff
            default: return nil
            }
        }
    }

    var id: String
    var anchor: String
    var classification: String
    var quarantined: Bool
    var failed: String
    var runs: String
    var framework: String
    var method: String
    var culprits: String?
    var reproduce: String?
    var reproduceBinary: String?
    var note: String?
    var failingOrder: Order?
    var passingOrder: Order?
    var failures: [Failure]
    var evidence: [Evidence]
    var sharedState: SharedStateModel? = nil
    var fix: Fix?

    func child(named name: String) -> Any? {
        switch name {
        case "id": return id
        case "anchor": return anchor
        case "classification": return classification
        case "quarantined": return quarantined
        case "failed": return failed
        case "runs": return runs
        case "framework": return framework
        case "method": return method
        case "culprits": return culprits.orFalse
        case "reproduce": return reproduce.orFalse
        case "reproduceBinary": return reproduceBinary.orFalse
        case "note": return note.orFalse
        case "failingOrder": return failingOrder.orFalse
        case "passingOrder": return passingOrder.orFalse
        case "failures": return failures
        case "hasFailures": return !failures.isEmpty
        case "evidence": return evidence
        case "hasEvidence": return !evidence.isEmpty
        case "sharedState": return sharedState.orFalse
        case "fix": return fix.orFalse
        default: return nil
        }
    }
}
