import Foundation
import XCTest
@testable import TestscopeExecution
#if canImport(Glibc)
import Glibc
#endif

/// Inputs that are pipes, the output folder's refusal of symbolic links, and system errors in Testscope's words.
final class InputAndOutputTests: XCTestCase {
    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-io-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testAPipeIsReadToItsEnd() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let payload = [UInt8]((0..<300_000).map { UInt8($0 % 251) })  // more than a pipe buffer: written by another thread
        let writeEnd = fds[1]
        let writer = Thread {
            payload.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count { offset += max(0, write(writeEnd, raw.baseAddress! + offset, raw.count - offset)) }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(fds[0]) }
        let read = try InputFile.read(URL(fileURLWithPath: "/dev/fd/\(fds[0])"))
        XCTAssertEqual(read, payload)
    }

    /// A regular file is read whole in one buffer; a range is read in place, short only at the end.
    func testRegularFilesAndRangesAreReadExactly() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("bytes")
        let payload = [UInt8]((0..<70_000).map { UInt8($0 % 253) })
        try Data(payload).write(to: file)
        XCTAssertEqual(try InputFile.read(file), payload)
        let empty = folder.appendingPathComponent("empty")
        try Data().write(to: empty)
        XCTAssertEqual(try InputFile.read(empty), [])
        let fd = open(file.path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0xee, count: 12)
        XCTAssertEqual(try InputFile.read(fd, offset: 100, count: 8, into: &buffer, at: 2), 8)
        XCTAssertEqual(Array(buffer[2..<10]), Array(payload[100..<108]))
        XCTAssertEqual(buffer[0], 0xee)
        XCTAssertEqual(buffer[10], 0xee)
        XCTAssertEqual(try InputFile.read(fd, offset: 69_996, count: 8, into: &buffer, at: 0), 4, "short at the end of the file")
    }

    func testMissingFilesAndFoldersAreFailuresInOurWords() throws {
        let folder = try temporaryFolder()
        XCTAssertThrowsError(try InputFile.read(folder.appendingPathComponent("nope"))) { error in
            XCTAssertEqual(error as? InputFile.Failure, InputFile.Failure(reason: "no such file", missing: true))
        }
        XCTAssertThrowsError(try InputFile.read(folder)) { error in
            XCTAssertEqual((error as? InputFile.Failure)?.reason, "it is a folder, not a file")
        }
    }

    func testFoundationErrorsAreTranslated() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        do {
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
            XCTFail("created a folder over a file")
        } catch {
            let reason = SystemErrorText.reason(error)
            XCTAssertFalse(reason.contains("could not be completed") || reason.contains("NSCocoaErrorDomain"), reason)
            XCTAssertFalse(reason.isEmpty)
        }
        XCTAssertEqual(SystemErrorText.reason(CocoaError(.fileWriteNoPermission)), "permission denied")
        XCTAssertEqual(SystemErrorText.reason(POSIXError(.ENOSPC)), "no space left on device")
        XCTAssertTrue(SystemErrorText.xmlReason(code: 89, line: 3).contains("entity bomb"))
        XCTAssertTrue(SystemErrorText.xmlReason(code: 29, line: 0).contains("external entity"))
        XCTAssertTrue(SystemErrorText.xmlReason(code: 1234, line: 2).hasSuffix("libxml2 error 1234), line 2"))
        // An error that is not ours is an internal error, still in one line without Foundation's text.
        let message = SystemErrorText.message(CocoaError(.fileReadCorruptFile))
        XCTAssertTrue(message.hasPrefix("internal error (the file is damaged)"), message)
    }

    /// The paths a report lists for the pages it wrote are the paths `file` gave when it wrote them.
    func testTheWrittenPathsAreTheCheckedOnes() throws {
        let root = try temporaryFolder()
        for output in [OutputFolder(root.appendingPathComponent("out")), OutputFolder(root.appendingPathComponent("a/./b/../out2/"))] {
            for name in ["index.html", "files/Sources.Synth.Unit0001.swift.html", "dirs/top-level~2.html"] {
                XCTAssertEqual(output.path(ofWritten: name), try output.file(name).path)
            }
        }
    }

    func testSymbolicLinksInTheOutputFolderAreRefused() throws {
        let root = try temporaryFolder()
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let output = OutputFolder(root.appendingPathComponent("out"))
        try output.prepare()
        try FileManager.default.createSymbolicLink(at: output.url.appendingPathComponent("odd"), withDestinationURL: elsewhere)
        for attempt in [{ _ = try output.subfolder("odd") }, { _ = try output.file("odd/page.html") }] {
            XCTAssertThrowsError(try attempt()) { error in
                XCTAssertEqual(error as? ExecutionError,
                               .symbolicLinkInOutputFolder(path: output.url.appendingPathComponent("odd").path, destination: elsewhere.path))
            }
        }
        try FileManager.default.createSymbolicLink(at: output.url.appendingPathComponent("files"), withDestinationURL: elsewhere)
        XCTAssertThrowsError(try output.prepare())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
        // A link where a test binary will write its event stream is removed (the binary would follow it).
        let events = output.url.appendingPathComponent("swift-testing-events.jsonl")
        try FileManager.default.createSymbolicLink(at: events, withDestinationURL: elsewhere.appendingPathComponent("x"))
        try FileManager.default.removeItem(at: output.url.appendingPathComponent("files"))
        try output.prepare()
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: events.path))
        try FileManager.default.createSymbolicLink(at: output.url.appendingPathComponent("files"), withDestinationURL: elsewhere)
        // A real subfolder is fine, and a file that is a link is replaced, never followed.
        try FileManager.default.removeItem(at: output.url.appendingPathComponent("files"))
        let files = try output.subfolder("files")
        let target = root.appendingPathComponent("target")
        try Data("keep".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: files.appendingPathComponent("a.html"), withDestinationURL: target)
        try AtomicFileWriter.write("new", to: try output.file("files/a.html"))
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "keep")
        XCTAssertEqual(try String(contentsOf: files.appendingPathComponent("a.html"), encoding: .utf8), "new")
    }

    /// Small pieces are buffered, large ones written from where they are: the file holds them in order.
    func testLargeAndSmallPiecesKeepTheirOrder() throws {
        let destination = try temporaryFolder().appendingPathComponent("out.bin")
        let writer = try AtomicFileWriter(destination: destination)
        var expected: [UInt8] = []
        for (i, size) in [10, 200_000, 3, 70_000, 65_536, 1, 65_535, 0, 100_000].enumerated() {
            let piece = [UInt8](repeating: UInt8(i + 1), count: size)
            try writer.write(bytes: piece)
            try writer.write(bytes: piece[...])
            expected += piece + piece
        }
        try writer.commit()
        XCTAssertEqual(try [UInt8](Data(contentsOf: destination)), expected)
    }
}
