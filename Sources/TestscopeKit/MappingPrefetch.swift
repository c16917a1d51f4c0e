import Foundation
import TestscopeExecution
import TestscopeProfileData

/// The test binary's coverage mapping, decoded on a thread of its own while the tests run: `run` knows
/// the binary as soon as the build ends, and the tests leave a core idle most of the time (XCTest hands
/// each test to another thread and waits). At 400 files the decoding is 0.12–0.33 s that the report then
/// no longer waits for. The report takes it (`take`) only for the same binary, else decodes as before.
final class MappingPrefetch: Sendable {
    private let started = Locked<(binary: URL, records: Prefetched<CoverageMappingRecords>)?>(nil)

    /// Starts decoding `binary`'s mapping (once; later calls are ignored).
    func start(_ binary: URL) {
        started.withLock { started in
            guard started == nil else { return }
            let path = binary.path
            started = (binary, Prefetched { try CoverageMappingReader.records(binaryAt: path, binaryIndex: 0) })
        }
    }

    /// The decoded mapping (or the error decoding it gave) when it was started for `binary` as the first
    /// of the report's binaries; nil otherwise. Waits for the decoding to end. Taken once: the records
    /// are large (16 × the mapping's size).
    func take(_ binary: URL, index: Int) -> Result<CoverageMappingRecords, any Error>? {
        guard index == 0, let (started, records) = self.started.withLock({ $0 }),
              started.standardizedFileURL.path == binary.standardizedFileURL.path else { return nil }
        self.started.withLock { $0 = nil }
        return Result { try records.value() }
    }
}
