import Foundation

/// The outcome of a finished child process.
public struct ProcessResult: Sendable {
    public var status: Int32
    /// True when the process was ended by a signal (then `status` is the signal number).
    public var terminatedBySignal: Bool
    public var stdout: Data
    public var stderr: Data

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    public var succeeded: Bool { status == 0 && !terminatedBySignal }
}

/// Runs child processes: captured, streamed to our own output, or with stdout sent to a file.
public enum ProcessRunner {
    /// Runs `executable` and captures both output streams.
    public static func run(
        _ executable: URL, _ arguments: [String], input: Data? = nil,
        currentDirectory: URL? = nil, environment: [String: String]? = nil,
        stdoutFile: URL? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        if let environment { process.environment = environment }

        let errPipe = Pipe()
        process.standardError = errPipe
        let outPipe = Pipe()
        var outHandle: FileHandle? = nil
        if let stdoutFile {
            _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: stdoutFile.path) else {
                throw ExecutionError.cannotWrite(path: stdoutFile.path, reason: "cannot open for writing")
            }
            outHandle = handle
            process.standardOutput = handle
        } else {
            process.standardOutput = outPipe
        }
        let inPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe

        do { try process.run() } catch {
            throw ExecutionError.launchFailed(tool: executable.lastPathComponent, reason: error.localizedDescription)
        }
        // Read both pipes concurrently so that neither can fill up and block the child.
        let group = DispatchGroup()
        let box = OutputBox()
        if stdoutFile == nil {
            group.enter()
            DispatchQueue.global().async {
                box.setOut(outPipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        group.enter()
        DispatchQueue.global().async {
            box.setErr(errPipe.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try? inPipe.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        group.wait()
        try? outHandle?.close()
        return ProcessResult(
            status: process.terminationStatus,
            terminatedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: box.out, stderr: box.err)
    }

    /// Runs `executable` with output streamed live to our stdout/stderr and also appended to `log`.
    public static func stream(
        _ executable: URL, _ arguments: [String], currentDirectory: URL? = nil,
        environment: [String: String]? = nil, log: FileHandle? = nil,
        echo: Bool = true, onStart: ((Int32) -> Void)? = nil, onLine: (@Sendable (String) -> Void)? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let lock = NSLock()
        let capturedErr = OutputBox()

        func pump(_ pipe: Pipe, to target: FileHandle, captureErr: Bool) -> DispatchWorkItem {
            DispatchWorkItem {
                let handle = pipe.fileHandleForReading
                var pending = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    if echo { target.write(chunk) }
                    log?.write(chunk)
                    lock.unlock()
                    if captureErr { capturedErr.appendErr(chunk) }
                    if let onLine {
                        pending.append(chunk)
                        while let newline = pending.firstIndex(of: 0x0A) {
                            let line = pending[pending.startIndex..<newline]
                            onLine(String(decoding: line, as: UTF8.self))
                            pending.removeSubrange(pending.startIndex...newline)
                        }
                    }
                }
                if let onLine, !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
            }
        }
        do { try process.run() } catch {
            throw ExecutionError.launchFailed(tool: executable.lastPathComponent, reason: error.localizedDescription)
        }
        onStart?(process.processIdentifier)
        let outWork = pump(outPipe, to: FileHandle.standardOutput, captureErr: false)
        let errWork = pump(errPipe, to: FileHandle.standardError, captureErr: true)
        DispatchQueue.global().async(execute: outWork)
        DispatchQueue.global().async(execute: errWork)
        process.waitUntilExit()
        outWork.wait()
        errWork.wait()
        return ProcessResult(
            status: process.terminationStatus,
            terminatedBySignal: process.terminationReason == .uncaughtSignal,
            stdout: Data(), stderr: capturedErr.err)
    }
}

/// Collects output from reader threads.
final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var out = Data()
    private(set) var err = Data()
    func setOut(_ data: Data) { lock.lock(); out = data; lock.unlock() }
    func setErr(_ data: Data) { lock.lock(); err = data; lock.unlock() }
    func appendErr(_ data: Data) { lock.lock(); err.append(data); lock.unlock() }
}
