import Foundation
import TestscopeExecution
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only memory map of an input file; pages already parsed can be handed back to the OS
/// so that reading a large export does not keep all of it resident.
final class MappedFile {
    let base: UnsafePointer<UInt8>
    let count: Int
    private let mapping: UnsafeMutableRawPointer?
    private var released = 0
    private let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    private var closed = false

    init(_ url: URL) throws {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw CoverageError.fileNotFound(path: url.path) }
            throw CoverageError.unreadable(path: url.path, reason: SystemErrorText.posix(code))
        }
        defer { Glibc_close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw CoverageError.unreadable(path: url.path, reason: String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw CoverageError.unreadable(path: url.path, reason: "it is a folder, not a file")
        }
        if (info.st_mode & S_IFMT) != S_IFREG {
            // A pipe (`--export <(cmd)`), a FIFO or /dev/stdin: no size to map, read to the end instead.
            let bytes: [UInt8]
            do { bytes = try InputFile.readToEnd(fd, sizeHint: 0) } catch {
                throw CoverageError.unreadable(path: url.path, reason: error.reason)
            }
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            copy.initialize(from: bytes, count: bytes.count)
            count = bytes.count
            mapping = nil
            base = UnsafePointer(copy)
            return
        }
        count = Int(info.st_size)
        if count == 0 {
            mapping = nil
            // A valid address that is never read (count is 0), freed in close().
            base = UnsafePointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))
            return
        }
        let pointer = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let pointer, pointer != MAP_FAILED else {
            throw CoverageError.unreadable(path: url.path, reason: String(cString: strerror(errno)))
        }
        mapping = pointer
        base = UnsafePointer(pointer.assumingMemoryBound(to: UInt8.self))
        _ = madvise(pointer, count, Int32(MADV_SEQUENTIAL))
    }

    /// Drops the pages before `offset` from memory once enough has been read (they are file-backed).
    func release(upTo offset: Int) {
        guard let mapping else { return }
        let boundary = (offset / pageSize) * pageSize
        guard boundary - released >= 1 << 20 else { return }
        _ = madvise(mapping + released, boundary - released, Int32(MADV_DONTNEED))
        released = boundary
    }

    func close() {
        guard !closed else { return }
        closed = true
        if let mapping { munmap(mapping, count) } else { UnsafeMutablePointer(mutating: base).deallocate() }
    }

    deinit { close() }
}

@inline(__always)
private func Glibc_close(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
