import Foundation
import TestscopeExecution

/// A log file written line by line from several threads, atomically renamed into place on `commit()`.
public final class LineLog: Sendable {
    private let writer: Locked<AtomicFileWriter>
    public let path: String

    public init(_ url: URL) throws {
        writer = Locked(try AtomicFileWriter(destination: url))
        path = url.path
    }

    public func write(_ line: String) {
        writer.withLock { try? $0.write(line + "\n") }
    }

    public func commit() throws {
        try writer.withLock { try $0.commit() }
    }
}
