import Foundation
import TestscopeExecution

/// Where `run` writes its raw artifacts (profiles, event streams, test list) while it runs: a folder in
/// the output folder, moved into place with the run's record only once the tests have run. A run that
/// is interrupted (or ends without a record) leaves the earlier run's artifacts and record as they
/// were, so `testscope report` still renders the last complete run (a Ctrl-C used to delete its
/// profiles and keep its record: exit 65).
struct RunStaging {
    static let folderName = ".run-in-progress"
    let output: OutputFolder
    let folder: URL

    /// A fresh staging folder (a leftover of a killed run removed), removed if the command is interrupted.
    init(output: OutputFolder) throws {
        self.output = output
        folder = try output.file(Self.folderName)
        try? FileManager.default.removeItem(at: folder)
        let folder = self.folder
        try Interruption.creatingTemporary(folder) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            } catch {
                throw ExecutionError.cannotWrite(path: folder.path, reason: SystemErrorText.reason(error))
            }
        }
    }

    /// Where a staged file will be once the run is committed (other files as they are).
    func final(_ url: URL) -> URL {
        let path = url.standardizedFileURL.path
        guard path.hasPrefix(folder.path + "/") else { return url }
        return output.url.appendingPathComponent(String(path.dropFirst(folder.path.count + 1)))
    }

    /// `warning` naming a staged file by its final path.
    func final(_ warning: Diagnostic) -> Diagnostic {
        var warning = warning
        warning.file = warning.file.map { final(URL(fileURLWithPath: $0)).path }
        return warning
    }

    /// The artifacts of a run in the output folder: a new run's replace all of an earlier run's.
    static func isRunArtifact(_ name: String) -> Bool {
        name == "profiles" || name == "test-list.txt" || name == LastRun.fileName
            || (name.hasPrefix("swift-testing-events") && name.hasSuffix(".jsonl"))
    }

    /// Puts the staged artifacts and `record` in place of the earlier run's. The record is written
    /// into the staging folder first; the moves then run with the interrupt's cleanup held off, so
    /// the folder holds either run whole, never one run's record with the other's files.
    func commit(_ record: LastRun) throws {
        try record.write(to: folder.appendingPathComponent(LastRun.fileName))
        let staged = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter(Self.isRunArtifact)
        let earlier = ((try? FileManager.default.contentsOfDirectory(atPath: output.url.path)) ?? []).filter(Self.isRunArtifact)
        var failure: (any Error)?
        Interruption.withCleanupHeldOff {
            do {
                for name in earlier where name != LastRun.fileName {
                    try FileManager.default.removeItem(at: output.url.appendingPathComponent(name))
                }
                // The record last: until it is renamed, the earlier one names no file of this run.
                for name in staged.filter({ $0 != LastRun.fileName }) + [LastRun.fileName] {
                    let (from, to) = (folder.appendingPathComponent(name), output.url.appendingPathComponent(name))
                    if rename(from.path, to.path) != 0 {
                        throw ExecutionError.cannotWrite(path: to.path, reason: SystemErrorText.posix(errno))
                    }
                }
            } catch {
                failure = error
            }
        }
        discard()
        if let failure { throw failure }
    }

    /// Removes the staging folder (and what is left in it).
    func discard() {
        try? FileManager.default.removeItem(at: folder)
        Interruption.forget(folder)
    }
}
