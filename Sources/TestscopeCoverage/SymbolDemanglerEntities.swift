/// `SymbolDemangler`'s operators for standard types, bound generics, functions, tuples, generic
/// signatures, initializers, closures and accessors: each mirrors the library function of the same
/// name in `swift/lib/Demangling/Demangler.cpp` (`demangleBoundGenericType`, `demanglePlainFunction`,
/// `popFunctionType`, `popFunctionParamLabels`, `popTuple`, `demangleGenericSignature`,
/// `demangleGenericRequirement`, `demangleFunctionEntity`, `demangleVariable`) for the subset.
extension SymbolDemangler {
    mutating func standardType(_ c: UInt8) -> Int32? {
        switch c {
        case UInt8(ascii: "a"): return swiftType(.structure, "Array")
        case UInt8(ascii: "b"): return swiftType(.structure, "Bool")
        case UInt8(ascii: "D"): return swiftType(.structure, "Dictionary")
        case UInt8(ascii: "d"): return swiftType(.structure, "Double")
        case UInt8(ascii: "f"): return swiftType(.structure, "Float")
        case UInt8(ascii: "h"): return swiftType(.structure, "Set")
        case UInt8(ascii: "i"): return swiftType(.structure, "Int")
        case UInt8(ascii: "J"): return swiftType(.structure, "Character")
        case UInt8(ascii: "N"): return swiftType(.structure, "ClosedRange")
        case UInt8(ascii: "n"): return swiftType(.structure, "Range")
        case UInt8(ascii: "S"): return swiftType(.structure, "String")
        case UInt8(ascii: "s"): return swiftType(.structure, "Substring")
        case UInt8(ascii: "u"): return swiftType(.structure, "UInt")
        case UInt8(ascii: "q"): return swiftType(.enumeration, "Optional")
        case UInt8(ascii: "E"): return swiftType(.protocolType, "Encodable")
        case UInt8(ascii: "e"): return swiftType(.protocolType, "Decodable")
        case UInt8(ascii: "H"): return swiftType(.protocolType, "Hashable")
        case UInt8(ascii: "j"): return swiftType(.protocolType, "Numeric")
        case UInt8(ascii: "K"): return swiftType(.protocolType, "BidirectionalCollection")
        case UInt8(ascii: "k"): return swiftType(.protocolType, "RandomAccessCollection")
        case UInt8(ascii: "L"): return swiftType(.protocolType, "Comparable")
        case UInt8(ascii: "l"): return swiftType(.protocolType, "Collection")
        case UInt8(ascii: "M"): return swiftType(.protocolType, "MutableCollection")
        case UInt8(ascii: "m"): return swiftType(.protocolType, "RangeReplaceableCollection")
        case UInt8(ascii: "Q"): return swiftType(.protocolType, "Equatable")
        case UInt8(ascii: "T"): return swiftType(.protocolType, "Sequence")
        case UInt8(ascii: "t"): return swiftType(.protocolType, "IteratorProtocol")
        case UInt8(ascii: "Z"): return swiftType(.protocolType, "SignedInteger")
        case UInt8(ascii: "z"): return swiftType(.protocolType, "BinaryInteger")
        // The pointer types, the other protocols and the concurrency types are left to the library.
        default: return nil
        }
    }

    mutating func boundGeneric() -> Int32? {
        // One level of arguments (`Array<Int>`); a generic type nested in a generic type is left to the library.
        gathered.removeAll()
        while let argument = pop(.type) { gathered.append(argument) }
        guard pop(.emptyList) != nil else { return nil }
        let arguments = makeFromGathered(.typeList, reversed: true)
        guard let nominal = popTypeAndGetChild(), Self.isAnyGeneric(kind(nominal)), childCount(nominal) == 2 else { return nil }
        guard childCount(arguments) > 0 else {
            let node = make(.type, nominal)
            substitutions.append(node)
            return node
        }
        let bound: Kind
        switch kind(nominal) {
        case .structure: bound = .boundGenericStructure
        case .enumeration: bound = .boundGenericEnum
        case .classType: bound = .boundGenericClass
        default: return nil
        }
        let node = make(.type, make(bound, make(.type, nominal), arguments))
        substitutions.append(node)
        return node
    }

    // MARK: Functions

    mutating func plainFunction() -> Int32? {
        let signature = pop(.genericSignature)
        guard var type = popFunctionType(.functionType) else { return nil }
        let labels = popFunctionParamLabels(type)
        if let signature { type = make(.type, make(.dependentGenericType, signature, type)) }
        guard let name = pop(.identifier), let context = popContext() else { return nil }
        if let labels { return make(.function, context, name, labels, type) }
        return make(.function, context, name, type)
    }

    mutating func popFunctionType(_ kind: Kind) -> Int32? {
        // Children in the library's order: throws, async, arguments, result.
        gathered.removeAll()
        if let throwsNode = pop(.throwsAnnotation) { gathered.append(throwsNode) }
        if let asyncNode = pop(.asyncAnnotation) { gathered.append(asyncNode) }
        guard let arguments = popFunctionParams(.argumentTuple) else { return nil }
        gathered.append(arguments)
        guard let result = popFunctionParams(.returnType) else { return nil }
        gathered.append(result)
        return make(.type, makeFromGathered(kind))
    }

    mutating func popFunctionParams(_ kind: Kind) -> Int32? {
        if pop(.emptyList) != nil { return make(kind, make(.type, make(.tuple))) }
        guard let type = pop(.type) else { return nil }
        return make(kind, type)
    }

    /// The argument labels: an empty list for `y`, else one popped node (`_` or an identifier) per parameter.
    mutating func popFunctionParamLabels(_ type: Int32) -> Int32? {
        if pop(.emptyList) != nil { return make(.labelList) }
        guard kind(type) == .type else { return nil }
        var function = child(type, 0)
        if kind(function) == .dependentGenericType { function = child(child(function, 1), 0) }
        guard kind(function) == .functionType || kind(function) == .noEscapeFunctionType else { return nil }
        var argumentTuple: Int32? = nil
        for i in 0..<childCount(function) where kind(child(function, i)) == .argumentTuple {
            argumentTuple = child(function, i)
            break
        }
        guard let argumentTuple else { return nil }
        let parameters = child(child(argumentTuple, 0), 0)
        let count = kind(parameters) == .tuple ? childCount(parameters) : 1
        guard count > 0 else { return nil }
        gathered.removeAll()
        var hasLabels = false
        for _ in 0..<count {
            guard let label = pop(), kind(label) == .identifier || kind(label) == .firstElementMarker else { return nil }
            gathered.append(label)
            hasLabels = hasLabels || kind(label) == .identifier
        }
        guard hasLabels else { return make(.labelList) }
        return makeFromGathered(.labelList, reversed: true)
    }

    mutating func popTuple() -> Int32? {
        gathered.removeAll()
        if pop(.emptyList) == nil {
            var first = false
            repeat {
                first = pop(.firstElementMarker) != nil
                var name: Int32? = nil
                if let label = pop(.identifier) {
                    var copy = nodes[Int(label)]
                    copy.kind = .tupleElementName
                    nodes.append(copy)
                    name = Int32(nodes.count - 1)
                }
                guard let type = pop(.type) else { return nil }
                gathered.append(name.map { make(.tupleElement, $0, type) } ?? make(.tupleElement, type))
            } while !first
        }
        return make(.type, makeFromGathered(.tuple, reversed: true))
    }

    mutating func genericParam(depth: Int, index: Int) -> Int32? {
        guard depth >= 0, index >= 0 else { return nil }
        nodes.append(Node(kind: .genericParam, index: Int32(index), depth: Int32(depth)))
        return Int32(nodes.count - 1)
    }

    mutating func genericParamIndex() -> Int32? {
        if nextIf(UInt8(ascii: "d")) {
            let depth = index() + 1
            return genericParam(depth: depth, index: index())
        }
        if nextIf(UInt8(ascii: "z")) { return genericParam(depth: 0, index: 0) }
        return genericParam(depth: 0, index: index() + 1)
    }

    mutating func genericSignature(hasParamCounts: Bool) -> Int32? {
        gathered.removeAll()
        if hasParamCounts {
            while !nextIf(UInt8(ascii: "l")) {
                let count = nextIf(UInt8(ascii: "z")) ? 0 : index() + 1
                // Past 26 the library names parameters in a way left to it; a missing `l` ends here too.
                guard count >= 0, count <= 26, position < text.count else { return nil }
                nodes.append(Node(kind: .paramCount, index: Int32(count)))
                gathered.append(Int32(nodes.count - 1))
            }
        } else {
            nodes.append(Node(kind: .paramCount, index: 1))
            gathered.append(Int32(nodes.count - 1))
        }
        // The counts in order, then the requirements in the order they were mangled.
        let counts = gathered.count
        while let requirement = pop(.conformanceRequirement) { gathered.append(requirement) }
        let first = pool.count
        for i in 0..<counts { pool.append(gathered[i]) }
        var i = gathered.count
        while i > counts { i -= 1; pool.append(gathered[i]) }
        return node(.genericSignature, first: first, count: gathered.count)
    }

    /// Only `R` followed by a generic parameter and preceded by a protocol (`A: P`); other requirements are left to the library.
    mutating func genericRequirement() -> Int32? {
        switch peek() {
        case UInt8(ascii: "c"), UInt8(ascii: "C"), UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "t"), UInt8(ascii: "T"),
             UInt8(ascii: "s"), UInt8(ascii: "S"), UInt8(ascii: "m"), UInt8(ascii: "M"), UInt8(ascii: "l"), UInt8(ascii: "L"),
             UInt8(ascii: "p"), UInt8(ascii: "P"), UInt8(ascii: "Q"): return nil
        default: break
        }
        guard let constrained = type(genericParamIndex()), let proto = popProtocol() else { return nil }
        return make(.conformanceRequirement, constrained, proto)
    }

    mutating func popProtocol() -> Int32? {
        if let type = pop(.type) {
            guard childCount(type) == 1, kind(child(type, 0)) == .protocolType else { return nil }
            return type
        }
        guard let name = pop(.identifier), let context = popContext() else { return nil }
        return make(.type, make(.protocolType, context, name))
    }

    /// `fC`, `fc` (initializers) and `fU`, `fu` (closures); other entities are left to the library.
    mutating func functionEntity() -> Int32? {
        switch next() {
        case UInt8(ascii: "C"), UInt8(ascii: "c"):
            let kind: Kind = text[position - 1] == UInt8(ascii: "C") ? .allocator : .constructor
            guard let type = pop(.type) else { return nil }
            let labels = popFunctionParamLabels(type)
            guard let context = popContext() else { return nil }
            if let labels { return make(kind, context, labels, type) }
            return make(kind, context, type)
        case UInt8(ascii: "U"), UInt8(ascii: "u"):
            let kind: Kind = text[position - 1] == UInt8(ascii: "U") ? .explicitClosure : .implicitClosure
            let number = index()
            guard number >= 0 else { return nil }
            nodes.append(Node(kind: .number, index: Int32(number)))
            let numberNode = Int32(nodes.count - 1)
            guard let type = pop(.type), let context = popContext() else { return nil }
            return make(kind, context, numberNode, type)
        default: return nil
        }
    }

    /// `v` then `g` or `s`: a getter or setter of a stored or computed property.
    mutating func variable() -> Int32? {
        guard let type = pop(.type) else { return nil }
        let labels = popFunctionParamLabels(type)
        guard let name = pop(.identifier), let context = popContext() else { return nil }
        let variable = labels.map { make(.variable, context, name, $0, type) } ?? make(.variable, context, name, type)
        switch next() {
        case UInt8(ascii: "g"): return make(.getter, variable)
        case UInt8(ascii: "s"): return make(.setter, variable)
        default: return nil
        }
    }
}
