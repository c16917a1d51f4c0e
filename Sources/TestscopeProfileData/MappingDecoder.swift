/// Decodes one function's encoded coverage mapping (`RawCoverageMappingReader::read`): file-id
/// map, expressions, then each file's regions; expansion counters propagated as llvm does.
package enum MappingDecoder {
    /// The decoded mapping; `fileIndices` index the translation unit's filenames.
    package struct Decoded: Sendable, Equatable {
        package var fileIndices: [Int]
        package var expressions: [MappingExpression]
        package var regions: [MappingRegion]
        /// Scratch for each expression's kind while a mapping is read, reused by the next one (an
        /// array per record with expressions was 26,400 allocations, 20 M instructions, at 400 files).
        fileprivate var kinds: [Bool] = []

        package init(fileIndices: [Int] = [], expressions: [MappingExpression] = [], regions: [MappingRegion] = []) {
            self.fileIndices = fileIndices
            self.expressions = expressions
            self.regions = regions
        }

        /// How many counters the mapping refers to: its highest counter index, in a region or an
        /// expression, plus one (llvm-cov's `getMaxCounterID` + 1).
        package var counterCount: Int {
            var count = 0
            func see(_ counter: MappingCounter) { if case .counter(let index) = counter { count = max(count, Int(index) + 1) } }
            for region in regions { see(region.counter); see(region.falseCounter) }
            for expression in expressions { see(expression.lhs); see(expression.rhs) }
            return count
        }

        package static func == (a: Decoded, b: Decoded) -> Bool {
            a.fileIndices == b.fileIndices && a.expressions == b.expressions && a.regions == b.regions
        }
    }

    /// Only the file-id map at the start of the mapping in `reader`'s window, into `indices`
    /// (emptied first): which filenames a record names, without decoding its regions.
    package static func fileIndices(_ reader: ByteReader, filenameCount: Int, into indices: inout [Int]) throws {
        var reader = reader
        try fileIndices(&reader, filenameCount: filenameCount, into: &indices)
    }

    private static func fileIndices(_ reader: inout ByteReader, filenameCount: Int, into indices: inout [Int]) throws {
        indices.removeAll(keepingCapacity: true)
        let fileCount = try size(&reader, "number of file ids")
        // The evaluated regions keep file ids in 16 bits; a function spanning more files is left to llvm-cov.
        guard fileCount <= Int(UInt16.max) + 1 else {
            throw ProfileDataError.unsupported("a function mapping over \(fileCount) files")
        }
        for _ in 0..<fileCount {
            let index = try reader.uleb128("filename index")
            guard index < UInt64(filenameCount) else {
                throw ProfileDataError.corrupt("coverage mapping: filename index \(index) of \(filenameCount)")
            }
            indices.append(Int(index))
        }
    }

    /// Decodes `mapping`; `filenameCount` bounds the file-id map (`readIntMax`).
    package static func decode(_ mapping: [UInt8], filenameCount: Int) throws -> Decoded {
        try decode(ByteReader(mapping, context: "coverage mapping"), filenameCount: filenameCount)
    }

    /// Decodes the mapping in `reader`'s window (a record inside the covfun section, not copied out).
    package static func decode(_ reader: ByteReader, filenameCount: Int) throws -> Decoded {
        var decoded = Decoded()
        try decode(reader, filenameCount: filenameCount, into: &decoded)
        return decoded
    }

    /// The same into `decoded`'s arrays, emptied first and their storage reused: one decoder per
    /// chunk of records allocates once, not three arrays (and their growth) per function.
    package static func decode(_ reader: ByteReader, filenameCount: Int, into decoded: inout Decoded) throws {
        var reader = reader
        decoded.fileIndices.removeAll(keepingCapacity: true)
        decoded.expressions.removeAll(keepingCapacity: true)
        decoded.regions.removeAll(keepingCapacity: true)
        try fileIndices(&reader, filenameCount: filenameCount, into: &decoded.fileIndices)
        let fileCount = decoded.fileIndices.count
        let expressionCount = try size(&reader, "number of expressions")
        // The scratch swapped in (never shared, so written in place) and back when done.
        var state = State(kinds: [])
        swap(&state.kinds, &decoded.kinds)
        state.kinds.removeAll(keepingCapacity: true)
        state.kinds.append(contentsOf: repeatElement(false, count: expressionCount))
        for _ in 0..<expressionCount {
            let lhs = try state.counter(&reader)
            let rhs = try state.counter(&reader)
            decoded.expressions.append(MappingExpression(lhs: lhs, rhs: rhs))
        }
        for fileID in 0..<fileCount {
            try readRegions(&reader, &state, fileID: UInt32(fileID), fileCount: fileCount, into: &decoded.regions)
        }
        propagateExpansionCounters(&decoded.regions, fileCount: fileCount)
        // (A mapping that throws leaves the scratch empty: the next one allocates it again.)
        swap(&state.kinds, &decoded.kinds)
        let kinds = decoded.kinds

        // llvm stores an expression's kind on the expression, set by the last counter that referred
        // to it; references here carry a kind, so give every reference that final kind.
        // (Without expressions there is nothing to normalize: most Swift functions.)
        guard expressionCount > 0 else { return }
        func normalized(_ counter: MappingCounter) -> MappingCounter {
            switch counter {
            case .subtract(let id), .add(let id): return kinds[Int(id)] ? .add(id) : .subtract(id)
            default: return counter
            }
        }
        for index in decoded.expressions.indices {
            decoded.expressions[index].lhs = normalized(decoded.expressions[index].lhs)
            decoded.expressions[index].rhs = normalized(decoded.expressions[index].rhs)
        }
        for index in decoded.regions.indices {
            decoded.regions[index].counter = normalized(decoded.regions[index].counter)
            decoded.regions[index].falseCounter = normalized(decoded.regions[index].falseCounter)
        }
    }

    /// `RawCoverageMappingDummyChecker::isDummy`: one file, no expressions, one region whose
    /// counter tag is Zero. Such records (hash 0) lose against a later real record.
    package static func isDummy(_ mapping: [UInt8]) throws -> Bool {
        try isDummy(ByteReader(mapping, context: "coverage mapping"))
    }

    /// `isDummy` of the mapping in `reader`'s window.
    package static func isDummy(_ reader: ByteReader) throws -> Bool {
        var reader = reader
        guard try size(&reader, "number of file ids") == 1 else { return false }
        _ = try intMax(&reader, UInt64(UInt32.max), "filename index")
        guard try size(&reader, "number of expressions") == 0 else { return false }
        guard try size(&reader, "number of regions") == 1 else { return false }
        return try intMax(&reader, UInt64(UInt32.max), "region header") & 3 == 0
    }

    /// Counter decoding, remembering each expression's kind (true = add).
    private struct State {
        var kinds: [Bool]

        mutating func counter(_ reader: inout ByteReader) throws -> MappingCounter {
            try decode(try intMax(&reader, UInt64(UInt32.max), "counter"))
        }

        mutating func decode(_ value: UInt64) throws -> MappingCounter {
            let id = UInt32(truncatingIfNeeded: value >> 2)
            switch value & 3 {
            case 0: return .zero
            case 1: return .counter(id)
            default:
                guard Int(id) < kinds.count else {
                    throw ProfileDataError.corrupt("coverage mapping: expression \(id) of \(kinds.count)")
                }
                let isAdd = value & 3 == 3
                kinds[Int(id)] = isAdd
                return isAdd ? .add(id) : .subtract(id)
            }
        }
    }

    private static func readRegions(_ reader: inout ByteReader, _ state: inout State, fileID: UInt32, fileCount: Int,
                                    into regions: inout [MappingRegion]) throws {
        let count = try size(&reader, "number of regions")
        var lineStart: UInt32 = 0
        for _ in 0..<count {
            var kind = MappingRegionKind.code
            var counter = MappingCounter.zero
            var falseCounter = MappingCounter.zero
            var expandedFileID: UInt32 = 0
            let header = try intMax(&reader, UInt64(UInt32.max), "region header")
            if header & 3 != 0 {
                counter = try state.decode(header)
            } else if header & 4 != 0 {
                kind = .expansion
                let expanded = header >> 3
                guard expanded < UInt64(fileCount) else {
                    throw ProfileDataError.corrupt("coverage mapping: expanded file id \(expanded) of \(fileCount)")
                }
                expandedFileID = UInt32(expanded)
            } else {
                switch header >> 3 {
                case 0: break
                case 2: kind = .skipped
                case 4:
                    kind = .branch
                    counter = try state.counter(&reader)
                    falseCounter = try state.counter(&reader)
                case 5, 6:
                    throw ProfileDataError.unsupported("MC/DC regions (clang -fcoverage-mcdc)")
                default:
                    throw ProfileDataError.corrupt("coverage mapping: region kind \(header >> 3)")
                }
            }
            let lineDelta = try intMax(&reader, UInt64(UInt32.max), "line delta")
            var columnStart = try reader.uleb128("column start")
            guard columnStart <= UInt64(UInt32.max) else { throw ProfileDataError.corrupt("coverage mapping: start column too big") }
            let lineCount = try intMax(&reader, UInt64(UInt32.max), "number of lines")
            var columnEnd = try intMax(&reader, UInt64(UInt32.max), "column end")
            // Unsigned 32-bit arithmetic, wrapping as in llvm.
            lineStart = lineStart &+ UInt32(lineDelta)
            if columnEnd & (1 << 31) != 0 {
                kind = .gap
                columnEnd &= ~(1 << 31)
            }
            if columnStart == 0 && columnEnd == 0 {
                columnStart = 1
                columnEnd = UInt64(UInt32.max)
            }
            let lineEnd = lineStart &+ UInt32(lineCount)
            let region = MappingRegion(kind: kind, counter: counter, falseCounter: falseCounter, fileID: fileID,
                                       expandedFileID: expandedFileID, lineStart: lineStart,
                                       columnStart: UInt32(columnStart), lineEnd: lineEnd, columnEnd: UInt32(columnEnd))
            guard (region.lineStart, region.columnStart) <= (region.lineEnd, region.columnEnd) else {
                throw ProfileDataError.corrupt("coverage mapping: region ends before it starts")
            }
            // The same limit as the export reader's (`LLVMCovExportReader.maxLine`): one number must not
            // make the model allocate billions of lines.
            guard region.lineEnd <= 10_000_000 else {
                throw ProfileDataError.corrupt("coverage mapping: a region reaches line \(region.lineEnd) (beyond 10,000,000)")
            }
            regions.append(region)
        }
    }

    /// An expansion region counts with the first region of the file it expands; repeated once per
    /// extra file id so nested expansions settle (llvm's exact loop, last expansion per file wins).
    private static func propagateExpansionCounters(_ regions: inout [MappingRegion], fileCount: Int) {
        guard fileCount > 1 else { return }
        var expansionOf = [Int?](repeating: nil, count: fileCount)
        for _ in 1..<fileCount {
            for index in regions.indices where regions[index].kind == .expansion {
                expansionOf[Int(regions[index].expandedFileID)] = index
            }
            for index in regions.indices {
                let file = Int(regions[index].fileID)
                if let expansion = expansionOf[file] {
                    regions[expansion].counter = regions[index].counter
                    expansionOf[file] = nil
                }
            }
        }
    }

    /// `readSize`: a count that cannot exceed the bytes left.
    @inline(__always)
    private static func size(_ reader: inout ByteReader, _ what: String) throws -> Int {
        let value = try reader.uleb128(what)
        guard value <= UInt64(reader.remaining) else {
            throw ProfileDataError.corrupt("coverage mapping: \(what) \(value) larger than the data")
        }
        return Int(value)
    }

    /// `readIntMax`: a value strictly below `limit`.
    @inline(__always)
    private static func intMax(_ reader: inout ByteReader, _ limit: UInt64, _ what: String) throws -> UInt64 {
        let value = try reader.uleb128(what)
        guard value < limit else { throw ProfileDataError.corrupt("coverage mapping: \(what) \(value) too big") }
        return value
    }
}
