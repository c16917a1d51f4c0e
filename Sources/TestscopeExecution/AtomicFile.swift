import CProcessControl
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written through a buffered temporary file and renamed into place on `commit()`,
/// so a reader never sees a half-written output.
package final class AtomicFileWriter {
    package let destination: URL
    private let temporary: URL
    private var fd: Int32
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16
    private var committed = false

    package init(destination: URL) throws {
        self.destination = destination
        let dir = destination.deletingLastPathComponent()
        self.temporary = dir.appendingPathComponent(".\(destination.lastPathComponent).tmp-\(getpid())")
        // Removed if the command is interrupted before `commit()`.
        let temporary = self.temporary
        fd = Interruption.creatingTemporary(temporary) { open(temporary.path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644) }
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

    package func write(_ text: String) throws {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { try flush() }
    }

    package func write<Bytes: Sequence>(bytes: Bytes) throws where Bytes.Element == UInt8 {
        // A large contiguous piece (a file page: 200 KB; a file's part of coverage.json: 57 KB on
        // average) goes to the file from where it is, after what is buffered: copying it into the
        // buffer first was 3 % of an HTML report's CPU, 1 % of a JSON report's.
        let direct = try bytes.withContiguousStorageIfAvailable { piece -> Bool in
            guard piece.count >= capacity / 4 else { return false }
            try flush()
            try writeOut(UnsafeRawBufferPointer(piece))
            return true
        }
        if direct == true { return }
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeOut($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws {
        let failure = writeAll(fd, bytes)
        if failure != 0 {
            throw ExecutionError.cannotWrite(path: destination.path, reason: String(cString: strerror(failure)))
        }
    }

    /// Flushes, closes and renames the temporary file onto the destination.
    package func commit() throws {
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
    package static func write(_ text: String, to destination: URL) throws {
        let writer = try AtomicFileWriter(destination: destination)
        try writer.write(text)
        try writer.commit()
    }
}

/// The folder that receives every output; nothing is written elsewhere. A symbolic link inside it
/// (`out/files → /elsewhere`) is never written through: a folder Testscope writes into that is a link
/// is refused with one line (the link is the user's; replacing it could lose what it points at), and a
/// file that is a link is replaced by the renamed temporary file, never followed.
package struct OutputFolder: Sendable {
    package let url: URL

    package init(_ url: URL) { self.url = url.standardizedFileURL }

    /// The folders Testscope writes into inside the output folder (checked before anything is written).
    package static let subfolderNames = ["files", "dirs", "assets", "profiles", "flaky-logs", "flaky-work", "per-test"]

    /// The `.gitignore` written into a folder Testscope creates, so that `git status` does not list the
    /// reports (coverage.py does the same for `htmlcov/`); a folder that existed keeps what it has.
    package static let gitignoreName = ".gitignore"

    /// Creates the folder (and parents) if needed, with a `.gitignore` of `*` when Testscope made it;
    /// refuses a folder it cannot write into, or one where a folder Testscope writes into is a symbolic
    /// link, so that nothing is written before the refusal.
    package func prepare() throws {
        var isFolder: ObjCBool = false
        let existed = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw ExecutionError.cannotWrite(path: url.path, reason: SystemErrorText.reason(error))
        }
        // Said here, before the first file: `--output /` as a user was refused later as "outside the output folder".
        if access(url.path, W_OK) != 0 {
            throw ExecutionError.outputFolderNotWritable(path: url.path, reason: SystemErrorText.posix(errno))
        }
        if !existed {
            try AtomicFileWriter.write("# Written by Testscope when it created this folder: nothing here is for version control.\n*\n",
                                       to: try file(Self.gitignoreName))
        }
        for name in Self.subfolderNames {
            let folder = url.appendingPathComponent(name)
            if let destination = Self.linkDestination(folder) {
                throw ExecutionError.symbolicLinkInOutputFolder(path: folder.path, destination: destination)
            }
        }
        // Files other processes write here (the test binary's event streams, llvm-profdata's output) would
        // follow a link: a link in their place is removed, as the files Testscope writes replace theirs.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        for name in names where Self.writtenByOtherProcesses(name) && Self.linkDestination(url.appendingPathComponent(name)) != nil {
            unlink(url.appendingPathComponent(name).path)
        }
    }

    static func writtenByOtherProcesses(_ name: String) -> Bool {
        name == "default.profdata" || name == "llvm-cov-export.json" || (name.hasPrefix("swift-testing-events") && name.hasSuffix(".jsonl"))
    }

    /// A path inside the folder; refuses names that would escape it, also through a symbolic link
    /// in one of the folders between the output folder and the file.
    package func file(_ name: String) throws -> URL {
        // Said to be a file and its parents folders: without it, Foundation `stat`s each to find out.
        let target = url.appendingPathComponent(name, isDirectory: false).standardizedFileURL
        // The folder `/` is its own prefix (`/coverage.json` is inside it).
        let prefix = url.path.hasSuffix("/") ? url.path : url.path + "/"
        guard target.path.hasPrefix(prefix), target.path.count > prefix.count else {
            throw ExecutionError.outsideOutputFolder(path: target.path, folder: url.path)
        }
        var parent = url
        for component in target.path.dropFirst(prefix.count).split(separator: "/").dropLast() {
            parent = parent.appendingPathComponent(String(component), isDirectory: true)
            if let destination = Self.linkDestination(parent) {
                throw ExecutionError.symbolicLinkInOutputFolder(path: parent.path, destination: destination)
            }
        }
        return target
    }

    /// The path of a file already written through `file(name)`, without its checks again (they
    /// lstat every folder on the way: the HTML report's list of its 800 pages cost 80 M instructions).
    package func path(ofWritten name: String) -> String {
        let folder = url.path
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// A folder inside the output folder, created if needed; a symbolic link or a file in its place is refused.
    package func subfolder(_ name: String) throws -> URL {
        let folder = try file(name)
        if let destination = Self.linkDestination(folder) {
            throw ExecutionError.symbolicLinkInOutputFolder(path: folder.path, destination: destination)
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ExecutionError.cannotWrite(path: folder.path, reason: SystemErrorText.reason(error))
        }
        return folder
    }

    /// Where `url` points when it is a symbolic link (nil when it is not one, or does not exist).
    static func linkDestination(_ url: URL) -> String? {
        var info = stat()
        guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) ?? "?"
    }
}
