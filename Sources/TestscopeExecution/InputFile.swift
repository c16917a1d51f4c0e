import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an input the user named — a regular file, or a pipe such as `--export <(cmd)` (`/dev/fd/63`),
/// `/dev/stdin` or a FIFO, whose size `stat` does not know — to its end. Foundation's
/// `FileManager.contents(atPath:)` returns nil for those, which read as "unreadable" or "empty".
public enum InputFile {
    /// Why an input could not be read, in Testscope's words; `missing` when it does not exist.
    public struct Failure: Error, Equatable {
        public var reason: String
        public var missing: Bool
    }

    /// The whole contents of `url`.
    public static func read(_ url: URL) throws(Failure) -> [UInt8] {
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

    /// Reads `fd` until end of file (EINTR retried).
    public static func readToEnd(_ fd: Int32, sizeHint: Int) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sizeHint + 1)
        var chunk = [UInt8](repeating: 0, count: max(1 << 16, min(sizeHint + 1, 1 << 24)))
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n == 0 { return bytes }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: SystemErrorText.posix(errno), missing: false)
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}

@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, buffer, count)
    #else
    return Darwin.read(fd, buffer, count)
    #endif
}
