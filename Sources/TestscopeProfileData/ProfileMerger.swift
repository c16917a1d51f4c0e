import TestscopeExecution

/// Sums raw and indexed profiles into `ProfileCounters` the way `llvm-profdata merge` does
/// (`InstrProfWriter::addRecord`): per (NameRef, FuncHash), saturating element-wise addition;
/// a later record whose counter count differs from the first one is ignored and reported.
package struct ProfileCountersBuilder: Sendable {
    /// A record ignored because its counter count differs from the one already merged.
    package struct CountMismatch: Sendable, Equatable {
        package var nameRef: UInt64
        package var funcHash: UInt64
        package var expected: Int
        package var found: Int
        /// The file (or label) the ignored record came from.
        package var source: String
    }

    package internal(set) var counters = ProfileCounters()
    package private(set) var mismatches: [CountMismatch] = []
    /// How many counter additions saturated at UInt64.max (llvm warns `counter_overflow`).
    package private(set) var saturatedAdditions = 0

    package init() {}

    package mutating func add(nameRef: UInt64, funcHash: UInt64, counters new: some Collection<UInt64>, source: String) {
        switch counters.add(nameRef: nameRef, funcHash: funcHash, counters: new) {
        case .inserted:
            break
        case .summed(let saturated):
            saturatedAdditions += saturated
        case .countMismatch(let expected):
            mismatches.append(CountMismatch(nameRef: nameRef, funcHash: funcHash, expected: expected,
                                            found: new.count, source: source))
        }
    }

    /// Another builder's records, in the order they were first added, with its mismatches and saturations.
    package mutating func add(_ other: ProfileCountersBuilder, source: String) {
        other.counters.forEach { nameRef, funcHash, counts in
            add(nameRef: nameRef, funcHash: funcHash, counters: counts, source: source)
        }
        mismatches += other.mismatches
        saturatedAdditions += other.saturatedAdditions
        counters.binaryIDs.formUnion(other.counters.binaryIDs)
    }

    package mutating func add(_ profile: RawProfile, source: String) {
        for record in profile.records {
            add(nameRef: record.nameRef, funcHash: record.funcHash, counters: record.counters, source: source)
        }
        counters.binaryIDs.formUnion(profile.binaryIDs)
    }

    package mutating func add(_ profile: IndexedProfile, source: String) {
        for record in profile.records {
            add(nameRef: record.nameRef, funcHash: record.funcHash, counters: record.counters, source: source)
        }
        counters.binaryIDs.formUnion(profile.binaryIDs)
    }
}

/// What reading one profile file gave: its profiles, or why it was skipped.
package struct ProfileFileOutcome: Sendable {
    package var path: String
    /// Nil when the file was merged.
    package var error: ProfileDataError?
}

/// The result of merging several profile files, with per-file outcomes for the caller to warn on.
package struct ProfileMergeResult: Sendable {
    package var counters: ProfileCounters
    package var files: [ProfileFileOutcome]
    package var mismatches: [ProfileCountersBuilder.CountMismatch]
    package var saturatedAdditions: Int
}

extension ProfileCounters {
    /// Reads and sums `.profraw`/`.profdata` files (told apart by their magic) in the given order.
    /// A file that fails to read contributes nothing and is reported; the rest are still merged.
    package static func merging(files paths: [String]) -> ProfileMergeResult {
        var builder = ProfileCountersBuilder()
        var outcomes: [ProfileFileOutcome] = []
        for path in paths {
            do {
                let bytes = try FileBytes.readAll(path: path)
                // Read everything first, so a file that fails halfway adds nothing.
                if bytes.count >= 8, bytes.prefix(8).elementsEqual([0xff, 0x6c, 0x70, 0x72, 0x6f, 0x66, 0x69, 0x81]) {
                    // Summed into a builder of its own first (its records straight from the reader),
                    // so that a file failing halfway adds nothing; the first file is taken whole.
                    var file = ProfileCountersBuilder()
                    file.counters.reserve(upTo: bytes.count)
                    let (_, ids) = try IndexedProfileReader.read(bytes: bytes, names: { file.counters.reserve(names: $0) }) { _, nameRef, hash, counters in
                        file.add(nameRef: nameRef, funcHash: hash, counters: counters, source: path)
                    }
                    file.counters.binaryIDs.formUnion(ids)
                    if builder.counters.isEmpty && builder.counters.binaryIDs.isEmpty && builder.mismatches.isEmpty {
                        builder = file
                    } else {
                        builder.add(file, source: path)
                    }
                } else {
                    let profiles = try RawProfileReader.read(bytes: bytes)
                    for profile in profiles { builder.add(profile, source: path) }
                }
                outcomes.append(ProfileFileOutcome(path: path, error: nil))
            } catch let error as ProfileDataError {
                outcomes.append(ProfileFileOutcome(path: path, error: error))
            } catch {
                outcomes.append(ProfileFileOutcome(path: path, error: .io("\(path): \(SystemErrorText.reason(error))")))
            }
        }
        builder.counters.compact()
        return ProfileMergeResult(counters: builder.counters, files: outcomes, mismatches: builder.mismatches,
                                  saturatedAdditions: builder.saturatedAdditions)
    }

    /// This profile's counters plus `other`'s, with the same rules as `ProfileCountersBuilder`.
    package func merging(_ other: ProfileCounters) -> ProfileCounters {
        var builder = ProfileCountersBuilder()
        for (source, counters) in [("first", self), ("second", other)] {
            for nameRef in counters.functions.keys.sorted() {
                for (hash, values) in (counters.functions[nameRef] ?? [:]).sorted(by: { $0.key < $1.key }) {
                    builder.add(nameRef: nameRef, funcHash: hash, counters: values, source: source)
                }
            }
        }
        var merged = builder.counters
        merged.binaryIDs = binaryIDs.union(other.binaryIDs)
        return merged
    }
}
