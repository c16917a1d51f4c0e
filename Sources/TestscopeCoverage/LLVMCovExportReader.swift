import Foundation

/// Reads an `llvm-cov export` JSON document by shape (not by its version string) and hands each
/// file and function to the caller as soon as it is read, so the export never lives in memory twice.
public struct LLVMCovExportReader {
    /// Which records to decode fully; the rest are skipped without decoding.
    public var includeFile: (String) -> Bool
    public var onFile: (ExportFile) throws -> Void
    public var onFunction: (ExportFunction) throws -> Void

    public init(includeFile: @escaping (String) -> Bool = { _ in true },
                onFile: @escaping (ExportFile) throws -> Void,
                onFunction: @escaping (ExportFunction) throws -> Void) {
        self.includeFile = includeFile
        self.onFile = onFile
        self.onFunction = onFunction
    }

    /// Reads the export at `url`.
    public func read(_ url: URL) throws -> ExportHeader {
        let mapped = try MappedFile(url)
        defer { mapped.close() }
        guard mapped.count > 0 else { throw CoverageError.emptyExport(path: url.path) }
        var scanner = JSONScanner(base: mapped.base, count: mapped.count)
        do {
            let header = try readRoot(&scanner, mapped: mapped)
            try header.validate(path: url.path)
            return header
        } catch let failure as JSONScanner.Failure {
            throw CoverageError.invalidJSON(
                path: url.path, line: scanner.lineNumber(of: failure.offset), message: failure.message)
        }
    }

    /// Reads an export from memory (tests, small inputs).
    public func read(bytes: [UInt8], name: String) throws -> ExportHeader {
        guard !bytes.isEmpty else { throw CoverageError.emptyExport(path: name) }
        return try bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(base: buffer.baseAddress!, count: buffer.count)
            do {
                let header = try readRoot(&scanner, mapped: nil)
                try header.validate(path: name)
                return header
            } catch let failure as JSONScanner.Failure {
                throw CoverageError.invalidJSON(
                    path: name, line: scanner.lineNumber(of: failure.offset), message: failure.message)
            }
        }
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
                if skip { try s.skipValue() } else { segments = try readSegments(&s) }
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

    private func readSegments(_ s: inout JSONScanner) throws -> [ExportSegment] {
        var segments: [ExportSegment] = []
        try s.beginArray()
        var first = true
        while try s.nextElement(first: &first) {
            try s.beginArray()
            var values: (UInt64, UInt64, UInt64, Bool, Bool, Bool) = (0, 0, 0, false, false, false)
            var index = 0
            var firstValue = true
            while try s.nextElement(first: &firstValue) {
                switch index {
                case 0: values.0 = try s.readUInt64()
                case 1: values.1 = try s.readUInt64()
                case 2: values.2 = try s.readUInt64()
                case 3: values.3 = try s.readBool()
                case 4: values.4 = try s.readBool()
                case 5: values.5 = try s.readBool()
                default: try s.skipValue()
                }
                index += 1
            }
            guard index >= 5 else {
                throw JSONScanner.Failure(message: "a segment has \(index) elements (expected 5 or 6)", offset: s.position)
            }
            segments.append(ExportSegment(
                line: UInt32(clamping: values.0), column: UInt32(clamping: values.1), count: values.2,
                hasCount: values.3, isRegionEntry: values.4, isGapRegion: values.5))
        }
        return segments
    }

    private func readFunction(_ s: inout JSONScanner) throws -> ExportFunction? {
        try s.beginObject()
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
                count = try s.readUInt64()
            } else if s.key(key, is: "filenames") {
                try s.beginArray()
                var firstName = true
                while try s.nextElement(first: &firstName) { filenames.append(try s.readString()) }
                sawFilenames = true
                skip = !filenames.contains(where: includeFile)
            } else if s.key(key, is: "regions"), !skip {
                regions = try readRegions(&s)
            } else {
                try s.skipValue()
            }
        }
        guard sawFilenames, !skip else { return nil }
        return ExportFunction(name: name, count: count, regions: regions, filenames: filenames)
    }

    private func readRegions(_ s: inout JSONScanner) throws -> [ExportRegion] {
        var regions: [ExportRegion] = []
        try s.beginArray()
        var first = true
        while try s.nextElement(first: &first) {
            try s.beginArray()
            // A fixed-size tuple, not an array: no allocation per region.
            var v: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
            var index = 0
            var firstValue = true
            while try s.nextElement(first: &firstValue) {
                switch index {
                case 0: v.0 = try s.readUInt64()
                case 1: v.1 = try s.readUInt64()
                case 2: v.2 = try s.readUInt64()
                case 3: v.3 = try s.readUInt64()
                case 4: v.4 = try s.readUInt64()
                case 5: v.5 = try s.readUInt64()
                case 6: v.6 = try s.readUInt64()
                case 7: v.7 = try s.readUInt64()
                default: try s.skipValue()
                }
                index += 1
            }
            guard index >= 5 else {
                throw JSONScanner.Failure(message: "a region has \(index) elements (expected 8)", offset: s.position)
            }
            regions.append(ExportRegion(
                lineStart: UInt32(clamping: v.0), columnStart: UInt32(clamping: v.1),
                lineEnd: UInt32(clamping: v.2), columnEnd: UInt32(truncatingIfNeeded: v.3),
                executionCount: v.4, fileID: UInt32(clamping: v.5), expandedFileID: UInt32(clamping: v.6),
                kind: RegionKind(rawValue: UInt8(clamping: v.7)) ?? .unknown))
        }
        return regions
    }
}
