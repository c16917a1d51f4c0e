/// Per context of a per-test run, each function it ran: its entry count and which of its code regions (in
/// its file, in mapping order, as `FunctionRecord` keeps them) executed. Stored with the impact map beside
/// `per-test.json`'s lines (not written to per-test.json): a selective run carries a skipped test's function
/// and region coverage forward with it (`CarriedCoverage`), which lines alone cannot give.
package struct PerTestRegions: Codable, Sendable, Equatable {
    /// Report paths and mangled names, each once (a name is repeated in every test that ran it).
    package var files: [String] = []
    package var names: [String] = []
    /// Per context, in `PerTestCoverage.contexts`' order.
    package var runs: [[Run]] = []

    /// One function in one context; encoded as `[file, name, count, regions, "0-3,5"]`.
    package struct Run: Codable, Sendable, Equatable {
        package var file: Int
        package var name: Int
        package var count: UInt64
        /// How many code regions the function has in its file (a function of another shape is not matched).
        package var regions: Int
        /// The executed regions' indexes as ranges (`PerTestCoverage.text`).
        package var executed: String

        package init(file: Int, name: Int, count: UInt64, regions: Int, executed: String) {
            (self.file, self.name, self.count, self.regions, self.executed) = (file, name, count, regions, executed)
        }

        package init(from decoder: Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            file = try fields.decode(Int.self)
            name = try fields.decode(Int.self)
            count = try fields.decode(UInt64.self)
            regions = try fields.decode(Int.self)
            executed = try fields.decode(String.self)
        }

        package func encode(to encoder: Encoder) throws {
            var fields = encoder.unkeyedContainer()
            try fields.encode(file)
            try fields.encode(name)
            try fields.encode(count)
            try fields.encode(regions)
            try fields.encode(executed)
        }
    }

    package init() {}

    /// What one context's functions ran (`PerTestBuilder.linesRun`'s), added as the next context.
    mutating func append(_ functions: [(path: String, name: String, count: UInt64, regions: Int, executed: [Int])],
                         files fileIndex: inout [String: Int], names nameIndex: inout [String: Int]) {
        func index(_ value: String, _ table: inout [String: Int], _ list: inout [String]) -> Int {
            if let known = table[value] { return known }
            list.append(value)
            table[value] = list.count - 1
            return list.count - 1
        }
        runs.append(functions.map { function in
            Run(file: index(function.path, &fileIndex, &files), name: index(function.name, &nameIndex, &names), count: function.count,
                regions: function.regions, executed: PerTestCoverage.text(PerTestCoverage.ranges(of: Set(function.executed.map(UInt32.init)))))
        })
    }
}
