#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Testscope's own demangler for the common shapes of Swift function symbols: plain and static
/// functions, initializers, getters and setters, and closures in them, over nominal, standard,
/// tuple, function, optional, array and dictionary types, generic parameters and conformance
/// requirements. It is a subset of the toolchain's demangler (`swift/lib/Demangling`), built the same
/// way: a stack of nodes, one operator at a time, with the same substitution and word tables, and a
/// printer of the same text. Anything outside the subset gives nil, and the library is asked.
///
/// Why: the library's calls (a node factory, a tree and a `std::string` each) were a third of a JSON
/// report's CPU on the 800-file package; this answers the same names on reused fixed buffers for
/// about two thirds of the library's instructions (`callgrind`, 400-file package), without the
/// calls' allocations. `SymbolDemanglerTests` checks it against the library on a recorded corpus of
/// symbols from five mirror packages, the recorded samples' names and seeded mutations of them:
/// where it answers, the answer is the library's.
struct SymbolDemangler {
    enum Kind: UInt8 {
        case identifier, module, emptyList, firstElementMarker, type, number
        case structure, enumeration, classType, protocolType
        case boundGenericStructure, boundGenericEnum, boundGenericClass, typeList
        case tuple, tupleElement, tupleElementName
        case functionType, noEscapeFunctionType, argumentTuple, returnType, throwsAnnotation, asyncAnnotation
        case inOut, genericParam, genericSignature, paramCount, conformanceRequirement, dependentGenericType
        case labelList, function, staticEntity, variable, getter, setter, allocator, constructor
        case explicitClosure, implicitClosure
    }

    /// One node: its text (a range of `arena`), its index (or depth and index), its children (a range of `pool`).
    struct Node {
        var kind: Kind
        var textStart: Int32 = 0
        var textCount: Int32 = 0
        var index: Int32 = 0
        var depth: Int32 = 0
        var firstChild: Int32 = 0
        var childCount: Int32 = 0
    }

    // Fixed-size buffers (a symbol that needs more is left to the library): appending to arrays
    // checked uniqueness and capacity on every node, and that cost as much as the library's call.
    private let storage = Storage()
    var nodes: FixedBuffer<Node>
    var pool: FixedBuffer<Int32>
    var arena: FixedBuffer<UInt8>
    var stack: FixedBuffer<Int32>
    var substitutions: FixedBuffer<Int32>
    /// The words of identifiers seen so far (start and length in the symbol), for word substitutions;
    /// found only when a word substitution needs them (most symbols have none): `pending` holds the
    /// literal pieces of identifiers not yet split into words, in order.
    var words: FixedBuffer<(start: Int, count: Int)>
    var pending: FixedBuffer<(start: Int, count: Int)>
    /// The standard library's types (`Si`, `SS`, …) by their letter, made once: nodes are never
    /// changed once made, so every use can share them.
    var standard: FixedBuffer<Int32>
    var swiftModule: Int32 = 0
    var base = (nodes: 0, pool: 0, arena: 0)
    var text = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    var position = 0
    /// Scratch for children gathered before their node is made.
    var gathered: FixedBuffer<Int32>
    /// The printed text (`SymbolDemanglerPrinter.swift`).
    var out: FixedBuffer<UInt8>
    /// Printing for a display name only (`demangle(_:forDisplay:)`).
    var forDisplay = false
    /// Set for the entity's own function type while printing for display: its parameters' types are left out.
    var entityParameters = false

    init() {
        nodes = storage.buffer(1024, Node(kind: .emptyList))
        pool = storage.buffer(2048, 0)
        arena = storage.buffer(2048, 0)
        stack = storage.buffer(256, 0)
        substitutions = storage.buffer(256, 0)
        words = storage.buffer(26, (0, 0))
        pending = storage.buffer(256, (0, 0))
        standard = storage.buffer(128, -1)
        gathered = storage.buffer(256, 0)
        out = storage.buffer(4096, 0)
        swiftModule = make(.module, text: "Swift")
        for letter in UInt8(ascii: "A")...UInt8(ascii: "z") {
            if let type = standardType(letter) { standard.base[Int(letter)] = type }
        }
        base = (nodes.count, pool.count, arena.count)
    }

    /// The root entity of `symbol` (`$s…`), nil when the symbol is outside the subset.
    mutating func parse(_ symbol: UnsafeBufferPointer<UInt8>) -> Int32? {
        nodes.removeAll(keeping: base.nodes)
        pool.removeAll(keeping: base.pool)
        arena.removeAll(keeping: base.arena)
        stack.removeAll()
        substitutions.removeAll()
        words.removeAll()
        pending.removeAll()
        // A NUL ends the name for the library (a C string): such a symbol is left to it.
        guard symbol.count > 2, symbol[0] == UInt8(ascii: "$"), symbol[1] == UInt8(ascii: "s"),
              memchr(symbol.baseAddress!, 0, symbol.count) == nil else { return nil }
        text = symbol
        position = 2
        while position < text.count {
            guard let node = demangleOperator() else { return nil }
            stack.append(node)
        }
        // The library's `Global` has the stack's nodes as children; one entity is the subset.
        guard stack.count == 1, !nodes.overflowed, !pending.overflowed, !pool.overflowed, !arena.overflowed, !stack.overflowed,
              !substitutions.overflowed, !gathered.overflowed else { return nil }
        return stack[0]
    }

    // MARK: Nodes

    func kind(_ node: Int32) -> Kind { nodes[Int(node)].kind }

    /// A node's text: in `arena`, or (a negative start) in the symbol being read.
    func textOf(_ node: Int32) -> UnsafeBufferPointer<UInt8> {
        let n = nodes[Int(node)]
        if n.textStart >= 0 { return UnsafeBufferPointer(start: arena.base + Int(n.textStart), count: Int(n.textCount)) }
        let start = Int(-n.textStart - 1)
        guard start + Int(n.textCount) <= text.count else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(rebasing: text[start..<(start + Int(n.textCount))])
    }
    func childCount(_ node: Int32) -> Int { Int(nodes[Int(node)].childCount) }
    func child(_ node: Int32, _ i: Int) -> Int32 { pool[Int(nodes[Int(node)].firstChild) + i] }

    // Fixed arities rather than a variadic parameter: each variadic call allocated an array.
    mutating func make(_ kind: Kind) -> Int32 { node(kind, first: pool.count, count: 0) }

    mutating func make(_ kind: Kind, _ a: Int32) -> Int32 {
        pool.append(a)
        return node(kind, first: pool.count - 1, count: 1)
    }

    mutating func make(_ kind: Kind, _ a: Int32, _ b: Int32) -> Int32 {
        pool.append(a)
        pool.append(b)
        return node(kind, first: pool.count - 2, count: 2)
    }

    mutating func make(_ kind: Kind, _ a: Int32, _ b: Int32, _ c: Int32) -> Int32 {
        pool.append(a)
        pool.append(b)
        pool.append(c)
        return node(kind, first: pool.count - 3, count: 3)
    }

    mutating func make(_ kind: Kind, _ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) -> Int32 {
        pool.append(a)
        pool.append(b)
        pool.append(c)
        pool.append(d)
        return node(kind, first: pool.count - 4, count: 4)
    }

    /// A node whose children are `gathered`, in that order or reversed.
    mutating func makeFromGathered(_ kind: Kind, reversed: Bool = false) -> Int32 {
        let first = pool.count
        if reversed {
            var i = gathered.count
            while i > 0 { i -= 1; pool.append(gathered[i]) }
        } else {
            for i in 0..<gathered.count { pool.append(gathered[i]) }
        }
        return node(kind, first: first, count: gathered.count)
    }

    mutating func node(_ kind: Kind, first: Int, count: Int) -> Int32 {
        nodes.append(Node(kind: kind, firstChild: Int32(first), childCount: Int32(count)))
        return Int32(nodes.count - 1)
    }

    mutating func make(_ kind: Kind, text: StaticString) -> Int32 {
        let start = Int32(arena.count)
        arena.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        nodes.append(Node(kind: kind, textStart: start, textCount: Int32(text.utf8CodeUnitCount)))
        return Int32(nodes.count - 1)
    }

    mutating func type(_ child: Int32?) -> Int32? { child.map { make(.type, $0) } }

    // MARK: The stack

    mutating func pop() -> Int32? { stack.popLast() }

    mutating func pop(_ kind: Kind) -> Int32? {
        guard let top = stack.last, self.kind(top) == kind else { return nil }
        return stack.popLast()
    }

    mutating func pop(where test: (Kind) -> Bool) -> Int32? {
        guard let top = stack.last, test(kind(top)) else { return nil }
        return stack.popLast()
    }

    static func isContext(_ kind: Kind) -> Bool {
        switch kind {
        case .module, .structure, .enumeration, .classType, .protocolType, .function, .staticEntity, .variable,
             .getter, .setter, .allocator, .constructor, .explicitClosure, .implicitClosure: return true
        default: return false
        }
    }

    static func isAnyGeneric(_ kind: Kind) -> Bool {
        kind == .structure || kind == .enumeration || kind == .classType || kind == .protocolType
    }

    mutating func popModule() -> Int32? {
        if let identifier = pop(.identifier) {
            var node = nodes[Int(identifier)]
            node.kind = .module
            nodes.append(node)
            return Int32(nodes.count - 1)
        }
        return pop(.module)
    }

    mutating func popContext() -> Int32? {
        if let module = popModule() { return module }
        if let type = pop(.type) {
            guard childCount(type) == 1 else { return nil }
            let inner = child(type, 0)
            return Self.isContext(kind(inner)) ? inner : nil
        }
        return pop(where: Self.isContext)
    }

    mutating func popTypeAndGetChild() -> Int32? {
        guard let type = pop(.type), childCount(type) == 1 else { return nil }
        return child(type, 0)
    }

    // MARK: Reading

    func peek() -> UInt8 { position < text.count ? text[position] : 0 }

    mutating func next() -> UInt8 {
        guard position < text.count else { return 0 }
        defer { position += 1 }
        return text[position]
    }

    mutating func nextIf(_ byte: UInt8) -> Bool {
        guard peek() == byte, position < text.count else { return false }
        position += 1
        return true
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
    static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }

    /// A decimal number; negative when there is none or it overflows (as the library's `demangleNatural`).
    mutating func natural() -> Int {
        guard Self.isDigit(peek()) else { return -1000 }
        var number = 0
        while Self.isDigit(peek()) {
            let (product, overflow) = number.multipliedReportingOverflow(by: 10)
            guard !overflow, product <= Int(Int32.max) - 9 else { return -1000 }
            number = product + Int(next() - 0x30)
        }
        return number
    }

    /// `_` is 0, `N_` is N + 1.
    mutating func index() -> Int {
        if nextIf(UInt8(ascii: "_")) { return 0 }
        let number = natural()
        if number >= 0, nextIf(UInt8(ascii: "_")) { return number + 1 }
        return -1000
    }

    mutating func demangleOperator() -> Int32? {
        let c = next()
        switch c {
        case UInt8(ascii: "A"): return multiSubstitutions()
        case UInt8(ascii: "C"): return anyGeneric(.classType)
        case UInt8(ascii: "O"): return anyGeneric(.enumeration)
        case UInt8(ascii: "P"): return anyGeneric(.protocolType)
        case UInt8(ascii: "V"): return anyGeneric(.structure)
        case UInt8(ascii: "F"): return plainFunction()
        case UInt8(ascii: "G"): return boundGeneric()
        case UInt8(ascii: "K"): return make(.throwsAnnotation)
        case UInt8(ascii: "R"): return genericRequirement()
        case UInt8(ascii: "S"): return standardSubstitution()
        case UInt8(ascii: "X"): return next() == UInt8(ascii: "E") ? popFunctionType(.noEscapeFunctionType) : nil
        case UInt8(ascii: "Y"): return next() == UInt8(ascii: "a") ? make(.asyncAnnotation) : nil
        case UInt8(ascii: "Z"):
            guard let entity = pop(where: { $0 == .type || Self.isContext($0) }) else { return nil }
            return make(.staticEntity, entity)
        case UInt8(ascii: "c"): return popFunctionType(.functionType)
        case UInt8(ascii: "f"): return functionEntity()
        case UInt8(ascii: "l"): return genericSignature(hasParamCounts: false)
        case UInt8(ascii: "r"): return genericSignature(hasParamCounts: true)
        case UInt8(ascii: "q"): return type(genericParamIndex())
        case UInt8(ascii: "s"): return swiftModule
        case UInt8(ascii: "t"): return popTuple()
        case UInt8(ascii: "v"): return variable()
        case UInt8(ascii: "x"): return type(genericParam(depth: 0, index: 0))
        case UInt8(ascii: "y"): return make(.emptyList)
        case UInt8(ascii: "z"): return type(popTypeAndGetChild().map { make(.inOut, $0) })
        case UInt8(ascii: "_"): return make(.firstElementMarker)
        default:
            guard Self.isDigit(c) else { return nil }
            position -= 1
            return identifier()
        }
    }

    /// `<length><text>`, or with a leading `0` words of earlier identifiers (`a`…`z` more, `A`…`Z` last).
    mutating func identifier() -> Int32? {
        if peek() != UInt8(ascii: "0") {
            // A plain identifier: its text stays in the symbol (a negative start).
            let count = natural()
            guard count > 0, position + count <= text.count, isPlainIdentifier(position, count) else { return nil }
            pending.append((position, count))
            nodes.append(Node(kind: .identifier, textStart: -Int32(position) - 1, textCount: Int32(count)))
            position += count
            let node = Int32(nodes.count - 1)
            substitutions.append(node)
            return node
        }
        position += 1
        // `00`: punycode (non-ASCII names), left to the library.
        guard peek() != UInt8(ascii: "0") else { return nil }
        var hasWordSubstitutions = true
        let start = Int32(arena.count)
        repeat {
            while hasWordSubstitutions, Self.isLower(peek()) || Self.isUpper(peek()) {
                let c = next()
                let word: Int
                if Self.isLower(c) {
                    word = Int(c - UInt8(ascii: "a"))
                } else {
                    word = Int(c - UInt8(ascii: "A"))
                    hasWordSubstitutions = false
                }
                splitPendingIntoWords()
                guard word < words.count else { return nil }
                arena.append(contentsOf: UnsafeBufferPointer(rebasing: text[words[word].start..<(words[word].start + words[word].count)]))
            }
            if nextIf(UInt8(ascii: "0")) { break }
            let count = natural()
            guard count > 0, position + count <= text.count, isPlainIdentifier(position, count) else { return nil }
            arena.append(contentsOf: UnsafeBufferPointer(rebasing: text[position..<(position + count)]))
            pending.append((position, count))
            position += count
        } while hasWordSubstitutions
        guard Int32(arena.count) > start else { return nil }
        nodes.append(Node(kind: .identifier, textStart: start, textCount: Int32(arena.count) - start))
        let node = Int32(nodes.count - 1)
        substitutions.append(node)
        return node
    }

    /// Only `[A-Za-z0-9_]`: a raw identifier (`` `a.b` ``, `` `a, b` ``) breaks the simplified name's
    /// reading of the full one (`SimplifiedName`), so such symbols are left to the library (found by
    /// the mutation test).
    func isPlainIdentifier(_ start: Int, _ count: Int) -> Bool {
        for i in start..<(start + count) {
            let b = text[i]
            guard Self.isLower(b) || Self.isUpper(b) || Self.isDigit(b) || b == UInt8(ascii: "_") else { return false }
        }
        return true
    }

    /// Words of the identifiers' literal pieces, in order: runs that start at a non-digit, non-`_`
    /// byte and end at `_`, the end, or a lower-to-upper case change; at least two bytes; at most 26.
    mutating func splitPendingIntoWords() {
        for p in 0..<pending.count {
            let (position, count) = pending[p]
            var wordStart = -1
            for i in 0...count {
                let b: UInt8 = i < count ? text[position + i] : 0
                if wordStart >= 0, b == UInt8(ascii: "_") || b == 0 || (!Self.isUpper(text[position + i - 1]) && Self.isUpper(b)) {
                    if i - wordStart >= 2, words.count < 26 { words.append((position + wordStart, i - wordStart)) }
                    wordStart = -1
                }
                if wordStart < 0, !Self.isDigit(b), b != UInt8(ascii: "_"), b != 0 { wordStart = i }
            }
        }
        pending.removeAll()
    }

    mutating func multiSubstitutions() -> Int32? {
        var repeatCount = -1
        while true {
            let c = next()
            if c == 0 { return nil }
            if Self.isLower(c) {
                guard let node = pushMultiSubstitutions(repeatCount, Int(c - UInt8(ascii: "a"))) else { return nil }
                stack.append(node)
                repeatCount = -1
                continue
            }
            if Self.isUpper(c) { return pushMultiSubstitutions(repeatCount, Int(c - UInt8(ascii: "A"))) }
            if c == UInt8(ascii: "_") {
                let index = repeatCount + 27
                guard index >= 0, index < substitutions.count else { return nil }
                return substitutions[index]
            }
            position -= 1
            repeatCount = natural()
            if repeatCount < 0 { return nil }
        }
    }

    mutating func pushMultiSubstitutions(_ repeatCount: Int, _ index: Int) -> Int32? {
        guard index < substitutions.count, repeatCount <= 2048 else { return nil }
        let node = substitutions[index]
        var count = repeatCount
        while count > 1 { stack.append(node); count -= 1 }
        return node
    }

    mutating func anyGeneric(_ kind: Kind) -> Int32? {
        guard let name = pop(.identifier), let context = popContext() else { return nil }
        let node = make(.type, make(kind, context, name))
        substitutions.append(node)
        return node
    }

    mutating func swiftType(_ kind: Kind, _ name: StaticString) -> Int32 {
        make(.type, make(kind, swiftModule, make(.identifier, text: name)))
    }

    mutating func standardSubstitution() -> Int32? {
        if nextIf(UInt8(ascii: "g")) {
            guard let wrapped = pop(.type) else { return nil }
            let node = make(.type, make(.boundGenericEnum, standard[Int(UInt8(ascii: "q"))], make(.typeList, wrapped)))
            substitutions.append(node)
            return node
        }
        let repeatCount = natural()
        guard repeatCount <= 2048, peek() != UInt8(ascii: "c") else { return nil }
        let node = standard[Int(next() & 0x7F)]
        guard node >= 0 else { return nil }
        var count = repeatCount
        while count > 1 { stack.append(node); count -= 1 }
        return node
    }

}
