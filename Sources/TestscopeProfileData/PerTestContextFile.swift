/// One block of a per-test contexts file: the counters that changed while one test (or, with an
/// empty id, code outside any test) ran.
package struct PerTestContextBlock: Sendable, Equatable {
    /// `""` outside tests; an XCTest id `Module.Class/test`; a Swift Testing test id as its event
    /// records give it (`Module.Suite/test()/File.swift:4:2`), with `\t<case number>` for a case.
    package var id: String
    /// (index into the counters section, counts added) pairs.
    package var indexes: [UInt32]
    package var deltas: [UInt64]

    package init(id: String, indexes: [UInt32], deltas: [UInt64]) {
        self.id = id
        self.indexes = indexes
        self.deltas = deltas
    }
}

/// Reads `<pid>.contexts`, written by the generated entry point's per-test recorder (`EntryPointSource`):
/// blocks of `"TSC1"`, u32 id length, id (UTF-8), u32 pair count, then (u32 counter index, u64 delta)
/// pairs, little-endian. A process killed while writing leaves a partial last block: it is dropped and
/// `truncated` says so.
package enum PerTestContextFile {
    static let magic: [UInt8] = Array("TSC1".utf8)
    /// Longer ids are refused as corrupt (test ids are far shorter).
    static let maximumIDLength = 1 << 16

    package static func read(path: String) throws -> (blocks: [PerTestContextBlock], truncated: Bool) {
        try read(bytes: FileBytes.readAll(path: path))
    }

    package static func read(bytes: [UInt8]) throws -> (blocks: [PerTestContextBlock], truncated: Bool) {
        var reader = ByteReader(bytes, context: "per-test contexts")
        var blocks: [PerTestContextBlock] = []
        while !reader.isAtEnd {
            let start = reader.offset
            do {
                guard Array(try reader.bytes(4, "block magic")) == magic else {
                    throw ProfileDataError.corrupt("per-test contexts: no block at offset \(start)")
                }
                let idLength = Int(try reader.u32("id length"))
                guard idLength <= maximumIDLength else { throw ProfileDataError.corrupt("per-test contexts: id of \(idLength) bytes at offset \(start)") }
                let id = String(decoding: try reader.bytes(idLength, "id"), as: UTF8.self)
                let count = Int(try reader.u32("pair count"))
                try reader.require(count * 12, "pairs")
                var indexes: [UInt32] = [], deltas: [UInt64] = []
                indexes.reserveCapacity(count)
                deltas.reserveCapacity(count)
                for _ in 0..<count {
                    indexes.append(try reader.u32("counter index"))
                    deltas.append(try reader.u64("delta"))
                }
                blocks.append(PerTestContextBlock(id: id, indexes: indexes, deltas: deltas))
            } catch ProfileDataError.truncated {
                return (blocks, true)
            }
        }
        return (blocks, false)
    }
}
