import Foundation

/// Reads an `llvm-cov export` JSON document by shape (not by its version string) and hands each
/// file and function to the caller as soon as it is read, so the export never lives in memory twice.
package struct LLVMCovExportReader {
    /// Which records to decode fully; the rest are skipped without decoding.
    package var includeFile: (String) -> Bool
    package var onFile: (ExportFile) throws -> Void
    package var onFunction: (ExportFunction) throws -> Void

    package init(includeFile: @escaping (String) -> Bool = { _ in true },
                onFile: @escaping (ExportFile) throws -> Void,
                onFunction: @escaping (ExportFunction) throws -> Void) {
        self.includeFile = includeFile
        self.onFile = onFile
        self.onFunction = onFunction
    }

    /// Reads the export at `url`.
    package func read(_ url: URL) throws -> ExportHeader {
        let mapped = try MappedFile(url)
        defer { mapped.close() }
        guard mapped.count > 0 else { throw CoverageError.emptyExport(path: url.path) }
        var scanner = JSONScanner(base: mapped.base, count: mapped.count)
        do {
            let header = try readRoot(&scanner, mapped: mapped)
            try header.validate(path: url.path)
            return header
        } catch let failure as JSONScanner.Failure {
            throw Self.error(failure, path: url.path, scanner: scanner)
        }
    }

    /// Reads an export from memory (tests, small inputs).
    package func read(bytes: [UInt8], name: String) throws -> ExportHeader {
        guard !bytes.isEmpty else { throw CoverageError.emptyExport(path: name) }
        return try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { throw CoverageError.emptyExport(path: name) }
            var scanner = JSONScanner(base: base, count: buffer.count)
            do {
                let header = try readRoot(&scanner, mapped: nil)
                try header.validate(path: name)
                return header
            } catch let failure as JSONScanner.Failure {
                throw Self.error(failure, path: name, scanner: scanner)
            }
        }
    }

    /// The highest line number taken from an export: one number must not make the model allocate
    /// billions of lines (a line table costs 8 bytes a line), and no real source file comes near it.
    package static let maxLine: UInt64 = 10_000_000

    /// A scanner failure as the user's error: JSON syntax, or a record whose values cannot be true.
    static func error(_ failure: JSONScanner.Failure, path: String, scanner: JSONScanner) -> CoverageError {
        let line = scanner.lineNumber(of: failure.offset)
        if let record = failure.record {
            return .invalidExportRecord(path: path, line: line, record: record, problem: failure.message)
        }
        return .invalidJSON(path: path, line: line, message: failure.message)
    }

    private func readRoot(_ s: inout JSONScanner, mapped: MappedFile?) throws -> ExportHeader {
        var header = ExportHeader()
        var sawData = false
        guard try s.nextIsObject() else { throw s.unexpected("a JSON object") }
        try s.beginObject()
        var first = true
        while let key = try s.nextKey(first: &first) {
            if s.key(key, is: "type"), try s.nextIsString() {
                header.type = try s.readString()
            } else if s.key(key, is: "version"), try s.nextIsString() {
                header.version = try s.readString()
            } else if s.key(key, is: "data"), try s.nextIsArray() {
                sawData = true
                try s.beginArray()
                var firstExport = true
                while try s.nextElement(first: &firstExport) {
                    try readExport(&s, mapped: mapped)
                }
            } else {
                try s.skipValue()
            }
        }
        s.skipWhitespace()
        if s.position < s.count { throw s.unexpected("the end of the document") }
        header.hasData = sawData
        return header
    }

    private func readExport(_ s: inout JSONScanner, mapped: MappedFile?) throws {
        try s.beginObject()
        var first = true
        while let key = try s.nextKey(first: &first) {
            if s.key(key, is: "files") {
                try s.beginArray()
                var firstFile = true
                while try s.nextElement(first: &firstFile) {
                    if let file = try readFile(&s) { try onFile(file) }
                    mapped?.release(upTo: s.position)
                }
            } else if s.key(key, is: "functions") {
                try s.beginArray()
                var firstFunction = true
                while try s.nextElement(first: &firstFunction) {
                    if let function = try readFunction(&s) { try onFunction(function) }
                    mapped?.release(upTo: s.position)
                }
            } else {
                try s.skipValue()
            }
        }
    }

    private func readFile(_ s: inout JSONScanner) throws -> ExportFile? {
        try s.beginObject()
        var filename: String?
        var segments: [ExportSegment]?
        var sawSegments = false
        var skip = false
        var first = true
        while let key = try s.nextKey(first: &first) {
            if s.key(key, is: "filename") {
                let name = try s.readString()
                filename = name
                if !includeFile(name) { skip = true }
            } else if s.key(key, is: "segments") {
                sawSegments = true
                if skip { try s.skipValue() } else { segments = try readSegments(&s, file: filename) }
            } else {
                try s.skipValue()
            }
        }
        guard let filename else { return nil }
        // A record without "segments" comes from a -summary-only export: hand it on even when
        // filtered out, so the caller can say so instead of reporting nothing.
        if skip && sawSegments { return nil }
        return ExportFile(filename: filename, segments: segments)
    }

    /// The segments of one file, validated: lines 1…`maxLine`, columns from 1, counts below 2^64;
    /// out-of-order segments are sorted (llvm writes them by line and column; the per-line rules
    /// need that order, and would otherwise walk past the end).
    private func readSegments(_ s: inout JSONScanner, file: String?) throws -> [ExportSegment] {
        var segments: [ExportSegment] = []
        try s.beginArray()
        var first = true
        var sorted = true
        while try s.nextElement(first: &first) {
            let record = "segment \(segments.count + 1) of " + (file.map { "file \"\($0)\"" } ?? "a file")
            let start = s.position
            try s.beginArray()
            var values: (UInt64, UInt64, UInt64, Bool, Bool, Bool) = (0, 0, 0, false, false, false)
            var index = 0
            var firstValue = true
            while try s.nextElement(first: &firstValue) {
                try Self.within(record, &s) {
                    switch index {
                    case 0: values.0 = try Self.line(&$0)
                    case 1: values.1 = try Self.column(&$0)
                    case 2: values.2 = try $0.readStrictUInt64("the count")
                    case 3: values.3 = try $0.readBool()
                    case 4: values.4 = try $0.readBool()
                    case 5: values.5 = try $0.readBool()
                    default: try $0.skipValue()
                    }
                }
                index += 1
            }
            guard index >= 5 else {
                throw JSONScanner.Failure(message: "it has \(index) elements (expected 5 or 6)", offset: start, record: record)
            }
            let segment = ExportSegment(
                line: UInt32(values.0), column: UInt32(values.1), count: values.2,
                hasCount: values.3, isRegionEntry: values.4, isGapRegion: values.5)
            if let last = segments.last, (last.line, last.column) > (segment.line, segment.column) { sorted = false }
            segments.append(segment)
        }
        if !sorted {
            // A stable sort: segments at the same position keep the order they were written in.
            segments = segments.enumerated().sorted {
                ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset)
            }.map(\.element)
        }
        return segments
    }

    /// Runs `body`, naming `record` in the failure of a value it refuses.
    private static func within(_ record: String, _ s: inout JSONScanner, _ body: (inout JSONScanner) throws -> Void) throws {
        do { try body(&s) } catch var failure as JSONScanner.Failure {
            if failure.record == nil, failure.isValueProblem { failure.record = record }
            throw failure
        }
    }

    /// A line number: 1…`maxLine`.
    private static func line(_ s: inout JSONScanner) throws -> UInt64 {
        let start = s.position
        let value = try s.readStrictUInt64("the line number")
        guard value >= 1 && value <= maxLine else {
            throw JSONScanner.Failure(message: value == 0 ? "the line number is 0 (lines start at 1)"
                : "the line number \(value) is beyond \(maxLine) (the most Testscope reads)", offset: start, valueProblem: true)
        }
        return value
    }

    /// A column number: 1…2^32−1 (end columns may carry llvm's gap bit, 2^31).
    private static func column(_ s: inout JSONScanner) throws -> UInt64 {
        let start = s.position
        let value = try s.readStrictUInt64("the column number")
        guard value >= 1 && value <= UInt64(UInt32.max) else {
            throw JSONScanner.Failure(message: value == 0 ? "the column number is 0 (columns start at 1)"
                : "the column number \(value) is beyond 2^32", offset: start, valueProblem: true)
        }
        return value
    }

    private func readFunction(_ s: inout JSONScanner) throws -> ExportFunction? {
        try s.beginObject()
        let start = s.position
        var name = ""
        var count: UInt64 = 0
        var regions: [ExportRegion] = []
        var filenames: [String] = []
        var sawFilenames = false
        var skip = false
        var first = true
        while let key = try s.nextKey(first: &first) {
            if s.key(key, is: "name") {
                name = try s.readString()
            } else if s.key(key, is: "count") {
                try Self.within("function \(name.isEmpty ? "record" : "\"\(name)\"")", &s) {
                    count = try $0.readStrictUInt64("the count")
                }
            } else if s.key(key, is: "filenames") {
                try s.beginArray()
                var firstName = true
                while try s.nextElement(first: &firstName) { filenames.append(try s.readString()) }
                sawFilenames = true
                skip = !filenames.contains(where: includeFile)
            } else if s.key(key, is: "regions"), !skip {
                regions = try readRegions(&s, function: name)
            } else {
                try s.skipValue()
            }
        }
        guard sawFilenames, !skip else { return nil }
        // Every region's file (and an expansion's target) must be one of the function's files.
        for (i, region) in regions.enumerated() {
            let bad = Int(region.fileID) >= filenames.count ? region.fileID
                : region.kind == .expansion && Int(region.expandedFileID) >= filenames.count ? region.expandedFileID : nil
            if let bad {
                throw JSONScanner.Failure(
                    message: "it points at file index \(bad), but the function has \(filenames.count) file\(filenames.count == 1 ? "" : "s")",
                    offset: start, record: "region \(i + 1) of function \"\(name)\"")
            }
            if (region.lineStart, region.columnStart) > (region.lineEnd, region.columnEnd) {
                throw JSONScanner.Failure(
                    message: "it ends (\(region.lineEnd):\(region.columnEnd)) before it starts (\(region.lineStart):\(region.columnStart))",
                    offset: start, record: "region \(i + 1) of function \"\(name)\"")
            }
        }
        return ExportFunction(name: name, count: count, regions: regions, filenames: filenames)
    }

    private func readRegions(_ s: inout JSONScanner, function: String) throws -> [ExportRegion] {
        var regions: [ExportRegion] = []
        try s.beginArray()
        var first = true
        while try s.nextElement(first: &first) {
            let record = "region \(regions.count + 1) of function \"\(function)\""
            let start = s.position
            try s.beginArray()
            // A fixed-size tuple, not an array: no allocation per region.
            var v: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
            var index = 0
            var firstValue = true
            while try s.nextElement(first: &firstValue) {
                try Self.within(record, &s) {
                    switch index {
                    case 0: v.0 = try Self.line(&$0)
                    case 1: v.1 = try Self.column(&$0)
                    case 2: v.2 = try Self.line(&$0)
                    case 3: v.3 = try Self.column(&$0)
                    case 4: v.4 = try $0.readStrictUInt64("the count")
                    case 5: v.5 = try $0.readStrictUInt64("the file index")
                    case 6: v.6 = try $0.readStrictUInt64("the expanded file index")
                    case 7: v.7 = try $0.readStrictUInt64("the kind")
                    default: try $0.skipValue()
                    }
                }
                index += 1
            }
            guard index >= 5 else {
                throw JSONScanner.Failure(message: "it has \(index) elements (expected 8)", offset: start, record: record)
            }
            regions.append(ExportRegion(
                lineStart: UInt32(v.0), columnStart: UInt32(v.1),
                lineEnd: UInt32(v.2), columnEnd: UInt32(v.3),
                executionCount: v.4, fileID: UInt32(clamping: v.5), expandedFileID: UInt32(clamping: v.6),
                kind: RegionKind(rawValue: UInt8(clamping: v.7)) ?? .unknown))
        }
        return regions
    }
}
