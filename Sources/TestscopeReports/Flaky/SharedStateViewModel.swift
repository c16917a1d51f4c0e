import TestscopeFlakiness

/// A finding's shared state on the Flaky page: the items (best first) with their write and read sites,
/// or "outside the process" with the file that shows it, or why nothing was found.
struct SharedStateModel: HTMLViewModel {
    /// One item: its name, kind, sites (`path:line`) and reset statement.
    struct Item: HTMLViewModel {
        var name: String
        var kind: String
        var writes: [String]
        var reads: [String]
        var reset: String?

        init(_ item: SharedStateItem) {
            name = item.name
            kind = item.kind.rawValue
            writes = item.writeSites.map(\.text)
            reads = item.readSites.map(\.text)
            reset = item.resetStatement
        }

        func child(named name: String) -> Any? {
            switch name {
            case "name": return self.name
            case "kind": return kind
            case "writes": return writes
            case "reads": return reads
            case "reset": return reset.orFalse
            default: return nil
            }
        }
    }

    var outside: Bool
    var items: [Item]
    var note: String?

    init(_ state: SharedStateFinding) {
        outside = state.outsideProcess
        items = (state.outsideProcess ? state.outsideEvidence : state.items).map(Item.init)
        note = state.note
    }

    func child(named name: String) -> Any? {
        switch name {
        case "outside": return outside
        case "items": return items
        case "hasItems": return !items.isEmpty
        case "note": return note.orFalse
        default: return nil
        }
    }
}
