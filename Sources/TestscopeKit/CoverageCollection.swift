import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeProfileData
import TestscopeRun

/// Which engine turns profiles and test binaries into coverage records.
public enum CoverageEngine: String, Sendable, CaseIterable {
    /// Testscope's own readers of the profiles and the binaries' coverage mapping: no llvm process.
    case native
    /// `llvm-profdata merge` and `llvm-cov export`, as before (the oracle, and the fallback).
    case llvmCov = "llvm-cov"
}

/// Profiles + test binaries → the model's record sources: natively by default; through the
/// toolchain's llvm tools with `--engine llvm-cov`, or by itself (with a note) for anything the
/// native readers were not taught (another format version, a Mach-O binary, MC/DC, …).
struct CoverageCollection {
    var settings: ReportSettings
    var terminal: Terminal
    var output: OutputFolder
    /// `run`'s test binary's mapping, decoded while the tests ran.
    var prefetched: MappingPrefetch?

    /// With `onlyProfilesOfTheseBinaries` (`--build-path`), raw profiles that another build of the
    /// binaries wrote (SwiftPM's codecov folder keeps them across builds) are left out, and a note
    /// says which profiles were read.
    func sources(profiles: [URL], binaries: [URL], onlyProfilesOfTheseBinaries: Bool = false) throws -> [any CoverageRecordSource] {
        for file in profiles + binaries {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else { throw CoverageError.fileNotFound(path: file.path) }
            if isDirectory.boolValue, file.pathExtension != "xctest" {  // a macOS test bundle is a folder
                throw CoverageError.unreadable(path: file.path, reason: "it is a folder; pass a profile (.profraw, .profdata) or a test binary (…PackageTests.xctest)")
            }
        }
        // A macOS test bundle (a folder) is read through the Mach-O file inside it.
        let binaries = try binaries.map { bundle in
            guard let file = BuildArtifacts.executable(of: bundle) else {
                throw CoverageError.unreadable(path: bundle.path, reason: "the bundle has no Contents/MacOS/\(bundle.deletingPathExtension().lastPathComponent); pass the test binary inside it")
            }
            return file
        }
        try output.prepare()
        let profiles = onlyProfilesOfTheseBinaries ? profilesOf(binaries, among: profiles) : profiles
        if settings.engine == .native {
            do {
                let records = try nativeRecords(profiles: profiles, binaries: binaries)
                if settings.keepLLVMArtifacts { _ = try llvmExport(profiles: profiles, binaries: binaries) }
                return [records]
            } catch let error as ProfileDataError where error.isUnsupported {
                terminal.note("the native coverage engine does not read this input (\(error)); using llvm-cov instead")
            }
        }
        return [ExportDocument(try llvmExport(profiles: profiles, binaries: binaries), writtenBy: try settings.toolchain().llvmCov.path)]
    }

    /// The raw profiles whose binary IDs name one of `binaries` (all of them when that cannot be told).
    private func profilesOf(_ binaries: [URL], among profiles: [URL]) -> [URL] {
        let buildIDs = Set(binaries.compactMap { try? ELFFile(path: $0.path, architecture: settings.architecture).buildID() })
        guard !buildIDs.isEmpty else { return profiles }
        let kept = profiles.filter { profile in
            guard profile.pathExtension == "profraw", let read = try? RawProfileReader.read(path: profile.path) else { return true }
            let ids = Set(read.flatMap(\.binaryIDs))
            return ids.isEmpty || !ids.isDisjoint(with: buildIDs)
        }
        guard !kept.isEmpty else { return profiles }
        let skipped = profiles.count - kept.count
        terminal.note("reading \(kept.count) profile(s) of \(binaries.map(\.lastPathComponent).joined(separator: ", ")): "
            + kept.map(\.lastPathComponent).joined(separator: ", ")
            + (skipped > 0 ? " (\(skipped) written by earlier builds left out)" : ""))
        return kept
    }

    /// The native engine: profiles summed directly (no `llvm-profdata merge`), every binary's mapping
    /// decoded, llvm-cov's record and segment rules applied.
    private func nativeRecords(profiles: [URL], binaries: [URL]) throws -> NativeRecordSource {
        terminal.progress("reading \(profiles.count) profile(s) and \(binaries.count) binary(ies)")
        PhaseTimer.mark("start")
        // The profiles are read on a second thread while the binaries' mappings are decoded: the two
        // are independent (0.06 s and 0.15 s at 400 files), and errors are still reported in order.
        let profilePaths = profiles.map(\.path)
        let mergeBox = Locked<ProfileMergeResult?>(nil)
        let merging = BlockingTask { mergeBox.withLock { $0 = ProfileCounters.merging(files: profilePaths) } }
        let mappings = binaries.enumerated().map { index, binary in
            prefetched?.take(binary, index: index) ?? Result {
                try CoverageMappingReader.records(binaryAt: binary.path, binaryIndex: index, architecture: settings.architecture)
            }
        }
        merging.wait()
        guard let merged = mergeBox.withLock({ $0 }) else { throw ProfileDataError.io("reading the profiles did not finish") }
        PhaseTimer.mark("read profiles and mappings")
        if let unsupported = merged.files.compactMap(\.error).first(where: \.isUnsupported) { throw unsupported }
        let failed = merged.files.filter { $0.error != nil }
        if failed.count == merged.files.count, let first = failed.first, let error = first.error {
            throw CoverageError.unusableProfiles(paths: failed.map(\.path), detail: "\(error)")
        }
        if !merged.mismatches.isEmpty {
            // Profiles of two builds mixed (old raw profiles left in a Darwin `codecov/`, which no binary ID
            // tells apart): llvm-profdata merge drops the later records and warns; so does this.
            let sources = Set(merged.mismatches.map(\.source)).sorted()
            terminal.emit(.warning("\(Set(merged.mismatches.map(\.nameRef)).count) function(s) in \(sources.joined(separator: ", ")) have another number "
                + "of counters than in the profiles read before: profiles of two builds are mixed, and those counts are left out; "
                + "report only the profiles of this build"))
        }
        for file in failed {
            terminal.emit(.warning("\(file.path) is not a readable profile (\(file.error.map { "\($0)" } ?? "")); "
                + "reporting from the other \(merged.files.count - failed.count) "
                + "(a test process killed while writing it leaves it truncated)"))
        }
        var mapped: [CoverageMappingRecords] = []
        for (binary, result) in zip(binaries, mappings) {
            let mapping: CoverageMappingRecords
            do {
                mapping = try result.get()
            } catch {
                throw CoverageError.translated(error, binary: binary.path)
            }
            try checkBuildID(mapping, binary: binary, profiles: merged)
            mapped.append(mapping)
        }
        PhaseTimer.mark("read mapping")
        // Only the records' headers and file lists now: they are evaluated a batch of files at a
        // time while the model is built (`NativeRecordSource`).
        let records: EncodedFunctionRecords
        do {
            records = try EncodedFunctionRecords.read(mapped, counters: merged.counters)
        } catch let failure as NativeFunctionRecords.DecodingFailure {
            throw CoverageError.translated(failure.error, binary: binaries[failure.binaryIndex].path)
        }
        mapped = []
        PhaseTimer.mark("record headers")
        let diagnostics = records.diagnostics
        // Swift writes function hash 0 and old profiles carry no binary ID: a profile of another
        // program then matches nothing, and llvm-cov would report every line as never run.
        if diagnostics.profiled == 0, records.loadableCount > 0, !merged.counters.isEmpty {
            let error = CoverageError.unrelatedProfile(binaries: binaries.map(\.path), profiles: merged.files.filter { $0.error == nil }.map(\.path))
            guard settings.allowMismatchedProfile else { throw error }
            terminal.emit(.warning((error.errorDescription ?? "") + " (reporting anyway: --allow-mismatched-profile)"))
        }
        // llvm-cov fails a whole load on a record without a name; let it say so.
        if diagnostics.unnamed > 0 { throw ProfileDataError.unsupported("\(diagnostics.unnamed) function record(s) without a name") }
        return NativeRecordSource(name: profiles.map(\.lastPathComponent).joined(separator: ", "),
                                  inputs: profiles.map(\.path) + binaries.map(\.path), encoded: records, binaries: binaries.map(\.path))
    }

    /// A profile written by another build of the binary gives silently wrong counts in llvm-cov
    /// (Swift's function hash is 0). The binary IDs say so where both sides have them; without
    /// (Darwin's profiles never have one, nor has an ELF binary linked without a build ID), the
    /// functions' counter counts, as far as they can (`counterDisagreements`).
    private func checkBuildID(_ mapping: CoverageMappingRecords, binary: URL, profiles: ProfileMergeResult) throws {
        let recorded = profiles.counters.binaryIDs
        let evidence: String
        if let buildID = mapping.buildID, !recorded.isEmpty {
            guard !recorded.contains(buildID) else { return }
            evidence = "build ID \(buildID); the profile has \(recorded.sorted().joined(separator: ", "))"
        } else {
            let counts = CoverageMappingReader.counterCounts(binaryAt: binary.path, architecture: settings.architecture)
            let disagreeing = mapping.counterDisagreements(with: profiles.counters, binaryCounts: counts)
            guard let first = disagreeing.first else { return }
            evidence = "\(disagreeing.count) function(s) counted with another number of counters than it has, "
                + "e.g. \(first.name): \(first.profile) in the profile, \(first.binary) in the binary"
        }
        let error = CoverageError.mismatchedProfile(binary: binary.path, evidence: evidence,
                                                    profiles: profiles.files.filter { $0.error == nil }.map(\.path))
        guard settings.allowMismatchedProfile else { throw error }
        terminal.emit(.warning((error.errorDescription ?? "") + " (reporting anyway: --allow-mismatched-profile)"))
    }

    /// The llvm-cov path: `llvm-profdata merge` (when needed) and `llvm-cov export` into the output folder.
    private func llvmExport(profiles: [URL], binaries: [URL]) throws -> URL {
        let collector = CoverageCollector(toolchain: try settings.toolchain())
        var merged = profiles[0]
        if profiles.count > 1 || profiles[0].pathExtension == "profraw" {
            merged = try output.file("default.profdata")
            terminal.progress("merging \(profiles.count) profile(s)")
            try collector.mergeProfiles(profiles, into: merged)
        }
        let export = try output.file("llvm-cov-export.json")
        terminal.progress("exporting coverage with \(collector.toolchain.llvmCov.path)")
        // llvm-cov reads a universal binary only with -arch: the slice the native engine would read.
        let architecture = settings.architecture ?? binaries.lazy.compactMap { MachOFile.chosenSlice(path: $0.path, requested: nil) }.first
        try collector.export(profile: merged, binaries: binaries, architecture: architecture, to: export)
        return export
    }
}
