import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written through a buffered temporary file and renamed into place on `commit()`,
/// so a reader never sees a half-written output.
public final class AtomicFileWriter {
    public let destination: URL
    private let temporary: URL
    private var fd: Int32
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16
    private var committed = false

    public init(destination: URL) throws {
        self.destination = destination
        let dir = destination.deletingLastPathComponent()
        self.temporary = dir.appendingPathComponent(".\(destination.lastPathComponent).tmp-\(getpid())")
        // Removed if the command is interrupted before `commit()`.
        let temporary = self.temporary
        fd = Interruption.creatingTemporary(temporary) { open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        if fd < 0 {
            Interruption.forget(temporary)
            throw ExecutionError.cannotWrite(path: destination.path, reason: String(cString: strerror(errno)))
        }
        buffer.reserveCapacity(capacity)
    }

    deinit {
        if !committed {
            if fd >= 0 { close(fd) }
            unlink(temporary.path)
            Interruption.forget(temporary)
        }
    }

    public func write(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { try flush() }
    }

    public func write<Bytes: Sequence>(bytes: Bytes) throws where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    private func flush() throws {
        let failure = buffer.withUnsafeBytes { writeAll(fd, $0) }
        if failure != 0 {
            throw ExecutionError.cannotWrite(path: destination.path, reason: String(cString: strerror(failure)))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, closes and renames the temporary file onto the destination.
    public func commit() throws {
        try flush()
        close(fd)
        fd = -1
        // An interrupted command puts nothing new in place.
        Interruption.checkpoint()
        if rename(temporary.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            Interruption.forget(temporary)
            throw ExecutionError.cannotWrite(path: destination.path, reason: reason)
        }
        committed = true
        Interruption.forget(temporary)
    }

    /// Writes `text` to `destination` atomically.
    public static func write(_ text: String, to destination: URL) throws {
        let writer = try AtomicFileWriter(destination: destination)
        try writer.write(text)
        try writer.commit()
    }
}

/// The folder that receives every output; nothing is written elsewhere.
public struct OutputFolder: Sendable {
    public let url: URL

    public init(_ url: URL) { self.url = url.standardizedFileURL }

    /// Creates the folder (and parents) if needed.
    public func prepare() throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw ExecutionError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }

    /// A path inside the folder; refuses names that would escape it.
    public func file(_ name: String) throws -> URL {
        let target = url.appendingPathComponent(name).standardizedFileURL
        guard target.path.hasPrefix(url.path + "/") else {
            throw ExecutionError.outsideOutputFolder(path: target.path, folder: url.path)
        }
        return target
    }
}
