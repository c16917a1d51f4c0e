/// How deeply a Mustache template nests, read before the template is parsed: swift-mustache's parser
/// and renderer recurse once per section level and overflow the stack on deep nesting (a template of
/// 1,000 nested `{{#a}}` sections crashed `report` with signal 11; 500 did not), so a template nested
/// deeper than `limit` — counting the partials it includes, and theirs — is refused with its line.
struct TemplateNesting: Equatable {
    /// The deepest nesting accepted (the built-in templates reach 5).
    static let limit = 100

    /// A `{{>partial}}` or `{{<parent}}` tag and the section depth it is at.
    struct Reference: Equatable {
        var name: String
        var depth: Int
    }

    /// The deepest section nesting of the template alone, and the 1-based line where it is reached.
    var depth = 0
    var line = 1
    var references: [Reference] = []

    /// Scans the tags of `text`, following set-delimiter tags (`{{=<% %>=}}`) as the parser does.
    init(_ text: String) {
        let bytes = Array(text.utf8)
        var open: [UInt8] = Array("{{".utf8), close: [UInt8] = Array("}}".utf8)
        var current = 0, line = 1, i = 0
        func starts(_ marker: [UInt8], at index: Int) -> Bool {
            guard !marker.isEmpty, index + marker.count <= bytes.count else { return false }
            for k in marker.indices where bytes[index + k] != marker[k] { return false }
            return true
        }
        func find(_ marker: [UInt8], from index: Int) -> Int? {
            var j = index
            while j < bytes.count {
                if starts(marker, at: j) { return j }
                j += 1
            }
            return nil
        }
        while let start = find(open, from: i) {
            for k in i..<start where bytes[k] == 0x0A { line += 1 }
            var j = start + open.count
            while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
            guard j < bytes.count else { break }
            let sigil = bytes[j]
            var endMarker = close
            if sigil == UInt8(ascii: "{") { endMarker = [UInt8(ascii: "}")] + close }
            if sigil == UInt8(ascii: "=") { endMarker = [UInt8(ascii: "=")] + close }
            guard let end = find(endMarker, from: j + 1) else { break }
            let content = String(decoding: bytes[(j + 1)..<end], as: UTF8.self)
            switch sigil {
            case UInt8(ascii: "#"), UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "<"):
                if sigil == UInt8(ascii: "<") { references.append(Reference(name: Self.trimmed(content), depth: current)) }
                current += 1
                if current > depth { depth = current; self.line = line }
            case UInt8(ascii: "/"):
                current = max(0, current - 1)
            case UInt8(ascii: ">"):
                references.append(Reference(name: Self.trimmed(content), depth: current))
            case UInt8(ascii: "="):
                let parts = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if parts.count == 2 { open = Array(parts[0].utf8); close = Array(parts[1].utf8) }
            default:
                break
            }
            for k in start..<min(end + endMarker.count, bytes.count) where bytes[k] == 0x0A { line += 1 }
            i = end + endMarker.count
        }
    }

    private static func trimmed(_ name: String) -> String {
        String(name.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// The partials and parents named, once each, in order.
    var partialNames: [String] {
        var names: [String] = []
        for reference in references where !reference.name.isEmpty && !names.contains(reference.name) { names.append(reference.name) }
        return names
    }

    /// The nesting of each template with the partials it includes (each inclusion one level, theirs
    /// counted from the depth they are included at). Iterative, so a long chain of partials cannot
    /// overflow the stack either; a partial met again while it is being measured (a cycle) counts as too deep.
    static func effectiveDepths(_ scans: [String: TemplateNesting]) -> [String: Int] {
        var result: [String: Int] = [:]
        var expanded = Set<String>()
        for root in scans.keys.sorted() where result[root] == nil {
            var stack = [root]
            while let current = stack.last {
                guard result[current] == nil, let scan = scans[current] else { stack.removeLast(); continue }
                let pending = scan.references.map(\.name).filter { result[$0] == nil && scans[$0] != nil }
                if !pending.isEmpty && !expanded.contains(current) {
                    expanded.insert(current)
                    stack.append(contentsOf: pending.filter { !expanded.contains($0) })
                    continue
                }
                var depth = scan.depth
                for reference in scan.references where scans[reference.name] != nil {
                    depth = max(depth, reference.depth + 1 + (result[reference.name] ?? limit + 1))
                }
                result[current] = depth
                stack.removeLast()
            }
        }
        return result
    }

    /// The templates along the deepest chain of inclusions from `name` (for naming the one to fix).
    static func deepestChain(from name: String, _ scans: [String: TemplateNesting], depths: [String: Int]) -> [String] {
        var chain = [name]
        var current = name
        while chain.count <= limit + 2, let scan = scans[current], let total = depths[current] {
            guard let next = scan.references.first(where: { reference in
                depths[reference.name].map { reference.depth + 1 + $0 == total } ?? false
            }), !chain.contains(next.name) else { break }
            chain.append(next.name)
            current = next.name
        }
        return chain
    }
}
