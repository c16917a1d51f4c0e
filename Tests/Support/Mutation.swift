import Foundation
import XCTest

/// Seeded mutations of real recorded inputs, shared by every reader's mutation test: bit flips, byte
/// overwrites, truncations, and (for text formats) tokens a hostile file would hold — numbers at the
/// edges (`-1`, `2^63`, `2^64`, `1e30`), markup, deep nesting. Deterministic (SplitMix64), so a
/// failure names a reproducible seed and iteration.
package struct Mutator {
    /// SplitMix64.
    package struct SeededGenerator: RandomNumberGenerator {
        package var state: UInt64
        package init(state: UInt64) { self.state = state }
        package mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    /// Mutations per corpus file: `TESTSCOPE_MUTATIONS=N` for a longer fuzzing session (CI uses each test's default).
    package static func iterations(default value: Int) -> Int {
        ProcessInfo.processInfo.environment["TESTSCOPE_MUTATIONS"].flatMap(Int.init) ?? value
    }

    /// `TESTSCOPE_MUTATION_SEED=S` for other mutations.
    package static let seed = ProcessInfo.processInfo.environment["TESTSCOPE_MUTATION_SEED"].flatMap(UInt64.init) ?? 0x7e57_5c0e

    /// Numbers that break readers which trust them.
    package static let edgeNumbers = ["-1", "0", "1e30", "2.5", "4294967296", "10000001", "2000000000",
                                     "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809"]

    package var random: SeededGenerator
    /// Text a hostile file of this format would hold, inserted or put in place of a number.
    package var tokens: [[UInt8]]

    package init(seed: UInt64, tokens: [String] = []) {
        random = SeededGenerator(state: seed)
        self.tokens = tokens.map { Array($0.utf8) }
    }

    /// One mutation of `original`.
    package mutating func mutate(_ original: [UInt8]) -> [UInt8] {
        var bytes = original
        let kinds = tokens.isEmpty ? 4 : 7
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0:
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
        case 1:
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            }
        case 2:
            for _ in 0..<Int.random(in: 1...8, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        case 3:
            if !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = [0x00, 0x7f, 0x80, 0xff].randomElement(using: &random)!
            }
            bytes = Array(bytes.prefix(Int.random(in: bytes.count / 2...bytes.count, using: &random)))
        case 4:
            // A token inserted somewhere (1 to 3 times).
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0...bytes.count, using: &random)
                bytes.insert(contentsOf: tokens.randomElement(using: &random)!, at: at)
            }
        case 5:
            // A number replaced by a token (edge numbers are among the tokens of numeric formats).
            for _ in 0..<Int.random(in: 1...3, using: &random) { replaceNumber(&bytes) }
        default:
            // A slice duplicated or moved: records out of order, repeated, nested.
            guard bytes.count > 2 else { break }
            let start = Int.random(in: 0..<bytes.count - 1, using: &random)
            let end = Int.random(in: (start + 1)...min(bytes.count, start + 400), using: &random)
            let slice = Array(bytes[start..<end])
            if Bool.random(using: &random) { bytes.removeSubrange(start..<end) }
            bytes.insert(contentsOf: slice, at: Int.random(in: 0...bytes.count, using: &random))
        }
        return bytes
    }

    private mutating func replaceNumber(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        let isDigit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
        var at = Int.random(in: 0..<bytes.count, using: &random)
        var tries = 0
        while !isDigit(bytes[at]) && tries < 64 { at = (at + 1) % bytes.count; tries += 1 }
        guard isDigit(bytes[at]) else { return }
        var start = at, end = at
        while start > 0, isDigit(bytes[start - 1]) { start -= 1 }
        while end < bytes.count, isDigit(bytes[end]) { end += 1 }
        bytes.replaceSubrange(start..<end, with: tokens.randomElement(using: &random)!)
    }

    /// Runs `accepts` (with the corpus file's name) on `iterations` mutations of each corpus file, failing (with file, seed and iteration)
    /// where `accepts` says the outcome was not a result or a typed error, or a mutation took too long.
    package static func run(_ corpus: [(name: String, bytes: [UInt8])], iterations: Int, tokens: [String] = [],
                           slowest: TimeInterval = 2, file: StaticString = #filePath, line: UInt = #line,
                           _ accepts: (_ name: String, _ bytes: [UInt8]) -> Bool) -> (inputs: Int, seconds: Double) {
        let start = Date()
        // A trap kills the test process before any assertion: `TESTSCOPE_MUTATION_LAST=FILE` keeps the input being tried there.
        let last = ProcessInfo.processInfo.environment["TESTSCOPE_MUTATION_LAST"]
        for (index, input) in corpus.enumerated() {
            var mutator = Mutator(seed: seed &+ UInt64(index), tokens: tokens)
            for iteration in 0..<iterations {
                let mutated = mutator.mutate(input.bytes)
                if let last { _ = FileManager.default.createFile(atPath: last, contents: Data(mutated)) }
                let began = Date()
                XCTAssertTrue(accepts(input.name, mutated), "\(input.name) iteration \(iteration) (seed \(seed)): untyped error", file: file, line: line)
                XCTAssertLessThan(Date().timeIntervalSince(began), slowest, "\(input.name) iteration \(iteration) (seed \(seed)) too slow",
                                  file: file, line: line)
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("\(corpus.count * iterations) mutated inputs in \(String(format: "%.1f", seconds)) s (seed \(seed))")
        return (corpus.count * iterations, seconds)
    }
}
