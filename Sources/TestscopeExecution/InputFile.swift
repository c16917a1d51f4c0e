import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an input the user named — a regular file, or a pipe such as `--export <(cmd)` (`/dev/fd/63`),
/// `/dev/stdin` or a FIFO, whose size `stat` does not know — to its end. Foundation's
/// `FileManager.contents(atPath:)` returns nil for those, which read as "unreadable" or "empty".
package enum InputFile {
    /// Why an input could not be read, in Testscope's words; `missing` when it does not exist.
    package struct Failure: Error, Equatable {
        package var reason: String
        package var missing: Bool
    }

    /// When the file at `path` was last modified; nil when it cannot be read. One `stat`: Foundation's
    /// `attributesOfItem` also looks up the owner's and group's names (`/etc/passwd`, `/etc/group`:
    /// 9 of the 14 system calls a source file cost in a report).
    package static func modificationDate(_ path: String) -> Date? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1_000_000_000)
    }

    /// The whole contents of `url`.
    package static func read(_ url: URL) throws(Failure) -> [UInt8] {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw Failure(reason: code == ENOENT ? "no such file" : SystemErrorText.posix(code), missing: code == ENOENT)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(reason: SystemErrorText.posix(errno), missing: false) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw Failure(reason: "it is a folder, not a file", missing: false) }
        return try readToEnd(fd, sizeHint: (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0)
    }

    /// Reads `fd` until end of file (EINTR retried), straight into the result: a profile or an
    /// export is read once, not through a second buffer (at 800 files a 7 MB profile was copied
    /// twice, 14 MB of page faults). The result is not zero-filled before the reads fill it
    /// (zeroing every source file and the profile was 1.3 % of a text report's instructions), and
    /// a regular file's is one byte past its size, so that its end is seen without growing.
    package static func readToEnd(_ fd: Int32, sizeHint: Int) throws(Failure) -> [UInt8] {
        var chunks: [[UInt8]] = []
        var size = sizeHint > 0 ? sizeHint + 1 : 1 << 16
        while true {
            var failure: Failure?
            var atEnd = false
            let chunk = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                while initialized < buffer.count {
                    let n = systemRead(fd, buffer.baseAddress! + initialized, buffer.count - initialized)
                    if n == 0 { atEnd = true; return }
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = Failure(reason: SystemErrorText.posix(errno), missing: false)
                        return
                    }
                    initialized += n
                }
            }
            if let failure { throw failure }
            if chunks.isEmpty && atEnd { return chunk }
            chunks.append(chunk)
            if atEnd { return Array(chunks.joined()) }
            size = chunks.reduce(0) { $0 + $1.count }
        }
    }

    /// Reads up to `count` bytes of `fd` at `offset` into `bytes[start...]`, which must have room;
    /// returns how many (fewer only at the end of the file). Pieces of a file are read in place,
    /// without a `Data` in between.
    package static func read(_ fd: Int32, offset: UInt64, count: Int, into bytes: inout [UInt8], at start: Int) throws(Failure) -> Int {
        precondition(start >= 0 && count >= 0 && start + count <= bytes.count, "InputFile.read: no room for \(count) bytes at \(start)")
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes {
                systemPread(fd, $0.baseAddress! + start + done, count - done, off_t(offset) + off_t(done))
            }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: SystemErrorText.posix(errno), missing: false)
            }
            done += n
        }
        return done
    }
}

@inline(__always)
private func systemPread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t) -> Int {
    #if canImport(Glibc)
    return Glibc.pread(fd, buffer, count, offset)
    #else
    return Darwin.pread(fd, buffer, count, offset)
    #endif
}

@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, buffer, count)
    #else
    return Darwin.read(fd, buffer, count)
    #endif
}
