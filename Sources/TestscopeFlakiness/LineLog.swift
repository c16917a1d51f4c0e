import Foundation
import TestscopeExecution

/// A log file written line by line from several threads, atomically renamed into place on `commit()`.
package final class LineLog: Sendable {
    private let writer: Locked<AtomicFileWriter>
    package let path: String

    package init(_ url: URL) throws {
        writer = Locked(try AtomicFileWriter(destination: url))
        path = url.path
    }

    package func write(_ line: String) {
        writer.withLock { try? $0.write(line + "\n") }
    }

    package func commit() throws {
        try writer.withLock { try $0.commit() }
    }
}
