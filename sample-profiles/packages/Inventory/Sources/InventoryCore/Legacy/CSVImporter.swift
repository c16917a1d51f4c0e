// No test ever touches this file: every line should have a 0 count.
public struct CSVImporter {
    public var separator: Character

    public init(separator: Character = ";") {
        self.separator = separator
    }

    public func importLines(_ text: String) -> [Item] {
        var out: [Item] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: separator)
            if fields.count < 3 {
                continue
            }
            if let price = Int(fields[2]),
               let item = Item(sku: String(fields[0]), name: String(fields[1]), priceCents: price) {
                out.append(item)
            }
        }
        return out
    }
}
