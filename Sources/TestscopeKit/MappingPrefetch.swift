import Foundation
import TestscopeExecution
import TestscopeProfileData

/// The test binary's coverage mapping, decoded on a thread of its own while the tests run: `run` knows
/// the binary as soon as the build ends, and the tests leave a core idle most of the time (XCTest hands
/// each test to another thread and waits). At 400 files the decoding is 0.12–0.33 s that the report then
/// no longer waits for. The report takes it (`take`) only for the same binary, else decodes as before.
final class MappingPrefetch: Sendable {
    private let state = Locked<(binary: URL?, task: BlockingTask?, result: Result<CoverageMappingRecords, any Error>?)>((nil, nil, nil))

    init() {}

    /// Starts decoding `binary`'s mapping (once; later calls are ignored).
    func start(_ binary: URL) {
        state.withLock { state in
            guard state.task == nil else { return }
            let path = binary.path
            state.binary = binary
            state.task = BlockingTask { [self] in
                let result = Result { try CoverageMappingReader.records(binaryAt: path, binaryIndex: 0) }
                self.state.withLock { $0.result = result }
            }
        }
    }

    /// The decoded mapping (or the error decoding it gave) when it was started for `binary` as the first
    /// of the report's binaries; nil otherwise. Waits for the decoding to end.
    func take(_ binary: URL, index: Int) -> Result<CoverageMappingRecords, any Error>? {
        guard index == 0, let (started, task) = state.withLock({ s in s.binary.flatMap { b in s.task.map { (b, $0) } } }),
              started.standardizedFileURL.path == binary.standardizedFileURL.path else { return nil }
        task.wait()
        return state.withLock { s in
            defer { s.result = nil }  // taken once: the records are large (16 × the mapping's size)
            return s.result
        }
    }
}
