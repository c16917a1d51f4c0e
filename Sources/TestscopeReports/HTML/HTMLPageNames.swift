/// File names of the report's pages. Source paths come from the package and are never trusted:
/// a page name keeps only ASCII letters, digits, `-`, `_` and `.` (so it cannot leave its folder or
/// need escaping in a URL), is at most about 120 characters, and is unique even on a
/// case-insensitive file system.
enum HTMLPageNames {
    static let maximumLength = 120

    /// `Sources/Shapes/Shape.swift` → `Sources.Shapes.Shape.swift.html` (then `-2`, `-3`, … on clashes).
    static func pages(for paths: [String]) -> [String] {
        var namer = Namer()
        return paths.map { namer.next($0) }
    }

    /// The names of `pages(for:)` one path at a time, in order (a streamed report's pages).
    struct Namer {
        private var taken = Set<String>()
        private var index = 0

        mutating func next(_ path: String) -> String {
            defer { index += 1 }
            var base = sanitize(path)
            if base.utf8.count > maximumLength { base = "\(index + 1)-" + String(base.suffix(maximumLength - 8)) }
            var name = base + ".html"
            var attempt = 1
            while taken.contains(name.lowercased()) {
                attempt += 1
                name = "\(base)-\(attempt).html"
            }
            taken.insert(name.lowercased())
            return name
        }
    }

    static func sanitize(_ path: String) -> String {
        var out = ""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".": out.unicodeScalars.append(scalar)
            case "/": out += "."
            default: out += "_"
            }
        }
        while let first = out.first, first == "." || first == "_" { out.removeFirst() }
        return out.isEmpty ? "file" : out
    }
}
