import Foundation
import TestscopeExecution

/// A log file written line by line from several threads, atomically renamed into place on `commit()`.
public final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private let writer: AtomicFileWriter
    public var path: String { writer.destination.path }

    public init(_ url: URL) throws { writer = try AtomicFileWriter(destination: url) }

    public func write(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        try? writer.write(line + "\n")
    }

    public func commit() throws {
        lock.lock(); defer { lock.unlock() }
        try writer.commit()
    }
}
