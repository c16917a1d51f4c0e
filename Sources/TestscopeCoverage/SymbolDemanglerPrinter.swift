/// The text of `SymbolDemangler`'s nodes, as the toolchain's `NodePrinter` writes them with
/// `swift-demangle`'s default options (module names, argument types, sugar for optionals, arrays
/// and dictionaries, `where` clauses). Any node it does not print gives false: the symbol is left to
/// the library.
extension SymbolDemangler {
    /// What a symbol demangles to.
    enum Demangled {
        /// A function, initializer or accessor: its full demangled name is in `out` (for display: the
        /// shorter text a display name is read from).
        case full
        /// A closure: its simplified name (`closure #1 in static Calc.f(_:)`).
        case closure(String)
    }

    /// `symbol` demangled, or nil when it is outside the subset.
    ///
    /// `forDisplay`: `out` holds what a display name is read from (`SimplifiedName`, the return type, the
    /// module), not the library's full name: the entity's parameters are printed as `label: _` or `_`
    /// and its generic signature without its `where` clause. A display name shows neither (the
    /// simplified name keeps the labels and the generic parameters), and printing them was about a
    /// fifth of the demangling of a JSON report. The return type is printed whole.
    mutating func demangle(_ symbol: UnsafeBufferPointer<UInt8>, forDisplay: Bool = false) -> Demangled? {
        self.forDisplay = forDisplay
        entityParameters = false
        guard let root = parse(symbol) else { return nil }
        out.removeAll()
        guard Self.isClosure(kind(root)) else {
            return isPrintableEntity(root) && print(root) && !out.overflowed ? .full : nil
        }
        // A closure's simplified name is `closure #N in ` before its parent's simplified name, which
        // `SimplifiedName` reads off the parent's full name.
        var prefix = ""
        var node = root
        while Self.isClosure(kind(node)) {
            prefix += kind(node) == .explicitClosure ? "closure #" : "implicit closure #"
            prefix += String(nodes[Int(child(node, 1))].index + 1)
            prefix += " in "
            node = child(node, 0)
        }
        guard isPrintableEntity(node), print(node),
              !out.overflowed, let parent = SimplifiedName.derived(fromFull: out.buffer) else { return nil }
        return .closure(prefix + parent)
    }

    private static func isClosure(_ kind: Kind) -> Bool { kind == .explicitClosure || kind == .implicitClosure }

    private func isPrintableEntity(_ node: Int32) -> Bool {
        switch kind(node) {
        case .function, .getter, .setter, .allocator, .constructor: return true
        case .staticEntity: return isPrintableEntity(child(node, 0))
        default: return false
        }
    }

    private mutating func append(_ text: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendText(_ node: Int32) {
        out.append(contentsOf: textOf(node))
    }

    private func textEquals(_ node: Int32, _ text: StaticString) -> Bool {
        let bytes = textOf(node)
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        for i in 0..<bytes.count where bytes[i] != text.utf8Start[i] { return false }
        return true
    }

    private enum TypePrinting { case none, withColon, functionStyle }

    private mutating func print(_ node: Int32) -> Bool {
        switch kind(node) {
        case .staticEntity:
            append("static ")
            return print(child(node, 0))
        case .function: return printEntity(node, .functionStyle, hasName: true)
        case .getter: return printEntity(child(node, 0), .withColon, hasName: true, extraName: "getter")
        case .setter: return printEntity(child(node, 0), .withColon, hasName: true, extraName: "setter")
        case .allocator:
            return printEntity(node, .functionStyle, hasName: false, extraName: kind(child(node, 0)) == .classType ? "__allocating_init" : "init")
        case .constructor: return printEntity(node, .functionStyle, hasName: childCount(node) > 2, extraName: "init")
        case .structure, .enumeration, .classType, .protocolType: return printEntity(node, .none, hasName: true)
        case .type: return print(child(node, 0))
        case .module, .identifier:
            appendText(node)
            return true
        case .labelList: return true
        case .boundGenericStructure, .boundGenericEnum, .boundGenericClass: return printBoundGeneric(node)
        case .tuple:
            out.append(UInt8(ascii: "("))
            guard printChildren(node) else { return false }
            out.append(UInt8(ascii: ")"))
            return true
        case .tupleElement:
            for i in 0..<childCount(node) where kind(child(node, i)) == .tupleElementName {
                appendText(child(node, i))
                append(": ")
            }
            return print(child(node, childCount(node) - 1))
        case .functionType, .noEscapeFunctionType: return printFunctionType(labels: nil, node)
        case .returnType:
            append(" -> ")
            return print(child(node, 0))
        case .inOut:
            append("inout ")
            return print(child(node, 0))
        case .genericParam:
            appendArchetypeName(index: Int(nodes[Int(node)].index), depth: Int(nodes[Int(node)].depth))
            return true
        case .genericSignature: return printGenericSignature(node)
        case .conformanceRequirement:
            guard print(child(node, 0)) else { return false }
            append(": ")
            return print(child(node, 1))
        case .dependentGenericType:
            guard print(child(node, 0)) else { return false }
            if needsSpaceBeforeType(child(node, 1)) { out.append(0x20) }
            return print(child(node, 1))
        default: return false
        }
    }

    /// `Context.name[.extra]` and the type as the library puts it (function style or after ` : `).
    /// Contexts are modules and nominal types only (anything printed after ` in ` is left to the library).
    private mutating func printEntity(_ entity: Int32, _ typePrinting: TypePrinting, hasName: Bool, extraName: StaticString? = nil) -> Bool {
        let context = child(entity, 0)
        let before = out.count
        switch kind(context) {
        case .module: appendText(context)
        case .structure, .enumeration, .classType, .protocolType: guard printEntity(context, .none, hasName: true) else { return false }
        default: return false
        }
        if out.count != before { out.append(UInt8(ascii: ".")) }
        if hasName {
            let mark = out.count
            guard print(child(entity, 1)) else { return false }
            if out.count != mark, extraName != nil { out.append(UInt8(ascii: ".")) }
        }
        if let extraName { append(extraName) }
        guard typePrinting != .none else { return true }
        var typeNode: Int32? = nil
        var labels: Int32? = nil
        for i in 0..<childCount(entity) {
            let c = child(entity, i)
            if typeNode == nil, kind(c) == .type { typeNode = c }
            if labels == nil, kind(c) == .labelList { labels = c }
        }
        guard let typeNode else { return false }
        var type = child(typeNode, 0)
        var style = typePrinting
        if style == .functionStyle {
            var t = type
            while kind(t) == .dependentGenericType { t = child(child(t, 1), 0) }
            if kind(t) != .functionType { style = .withColon }
        }
        if style == .withColon {
            append(" : ")
        } else if needsSpaceBeforeType(type) {
            out.append(0x20)
        }
        // The next function type printed is the entity's own (a generic signature before it prints none).
        entityParameters = forDisplay && style == .functionStyle
        guard let labels else { return print(type) }
        if kind(type) == .dependentGenericType {
            guard print(child(type, 0)) else { return false }
            let dependent = child(type, 1)
            if needsSpaceBeforeType(dependent) { out.append(0x20) }
            type = child(dependent, 0)
        }
        guard kind(type) == .functionType || kind(type) == .noEscapeFunctionType else { return false }
        return printFunctionType(labels: labels, type)
    }

    private func needsSpaceBeforeType(_ node: Int32) -> Bool {
        switch kind(node) {
        case .type: return needsSpaceBeforeType(child(node, 0))
        case .functionType, .dependentGenericType: return false
        default: return true
        }
    }

    /// `(params) [async] [throws] -> result`.
    private mutating func printFunctionType(labels: Int32?, _ node: Int32) -> Bool {
        let placeholders = entityParameters
        entityParameters = false
        var isAsync = false, isThrowing = false
        var index = 0
        while index < childCount(node) {
            switch kind(child(node, index)) {
            case .throwsAnnotation: isThrowing = true
            case .asyncAnnotation: isAsync = true
            default: break
            }
            guard kind(child(node, index)) != .argumentTuple else { break }
            index += 1
        }
        guard index + 1 < childCount(node), kind(child(node, index + 1)) == .returnType else { return false }
        guard printParameters(labels: labels, child(node, index), placeholders: placeholders) else { return false }
        if isAsync { append(" async") }
        if isThrowing { append(" throws") }
        return print(child(node, index + 1))
    }

    /// `placeholders`: each parameter's type printed as `_` (the entity's own, for a display name).
    private mutating func printParameters(labels: Int32?, _ argumentTuple: Int32, placeholders: Bool) -> Bool {
        let parameters = child(child(argumentTuple, 0), 0)
        guard kind(parameters) == .tuple else {
            out.append(UInt8(ascii: "("))
            if placeholders { out.append(UInt8(ascii: "_")) } else { guard print(parameters) else { return false } }
            out.append(UInt8(ascii: ")"))
            return true
        }
        let labelCount = labels.map(childCount) ?? 0
        guard labelCount == 0 || labelCount == childCount(parameters) else { return false }
        out.append(UInt8(ascii: "("))
        for i in 0..<childCount(parameters) {
            if i > 0 { append(", ") }
            if let labels, labelCount > 0 {
                let label = child(labels, i)
                if kind(label) == .identifier { appendText(label) } else { out.append(UInt8(ascii: "_")) }
                append(": ")
            }
            if placeholders {
                // A tuple element's own names, as `.tupleElement` prints them, before the placeholder.
                let element = child(parameters, i)
                if kind(element) == .tupleElement {
                    for k in 0..<childCount(element) where kind(child(element, k)) == .tupleElementName {
                        appendText(child(element, k))
                        append(": ")
                    }
                }
                out.append(UInt8(ascii: "_"))
                continue
            }
            guard print(child(parameters, i)) else { return false }
        }
        out.append(UInt8(ascii: ")"))
        return true
    }

    /// `[T]`, `[K : V]`, `T?` for the standard library's Array, Dictionary and Optional; `Name<T, U>` otherwise.
    private mutating func printBoundGeneric(_ node: Int32) -> Bool {
        let nominal = child(child(node, 0), 0)
        let arguments = child(node, 1)
        let isSwift = kind(child(nominal, 0)) == .module && textEquals(child(nominal, 0), "Swift")
        let name = child(nominal, 1)
        if kind(node) == .boundGenericEnum, isSwift, childCount(arguments) == 1, textEquals(name, "Optional") {
            // The library puts a non-simple type (a function, `inout`, …) in parentheses; those are left to it.
            switch kind(child(child(arguments, 0), 0)) {
            case .structure, .enumeration, .classType, .protocolType, .boundGenericStructure, .boundGenericEnum,
                 .boundGenericClass, .tuple, .genericParam: break
            default: return false
            }
            guard print(child(arguments, 0)) else { return false }
            out.append(UInt8(ascii: "?"))
            return true
        }
        if kind(node) == .boundGenericStructure, isSwift, childCount(arguments) == 1, textEquals(name, "Array") {
            out.append(UInt8(ascii: "["))
            guard print(child(arguments, 0)) else { return false }
            out.append(UInt8(ascii: "]"))
            return true
        }
        if kind(node) == .boundGenericStructure, isSwift, childCount(arguments) == 2, textEquals(name, "Dictionary") {
            out.append(UInt8(ascii: "["))
            guard print(child(arguments, 0)) else { return false }
            append(" : ")
            guard print(child(arguments, 1)) else { return false }
            out.append(UInt8(ascii: "]"))
            return true
        }
        guard print(child(node, 0)) else { return false }
        out.append(UInt8(ascii: "<"))
        guard printChildren(arguments) else { return false }
        out.append(UInt8(ascii: ">"))
        return true
    }

    /// `node`'s children from `first` on, separated by `, ` (the library's `printChildren(node, ", ")`).
    private mutating func printChildren(_ node: Int32, from first: Int = 0) -> Bool {
        for i in first..<Swift.max(first, childCount(node)) {
            if i > first { append(", ") }
            guard print(child(node, i)) else { return false }
        }
        return true
    }

    private mutating func printGenericSignature(_ node: Int32) -> Bool {
        out.append(UInt8(ascii: "<"))
        var depth = 0
        while depth < childCount(node), kind(child(node, depth)) == .paramCount {
            if depth != 0 { append("><") }
            for index in 0..<Int(nodes[Int(child(node, depth))].index) {
                if index != 0 { append(", ") }
                appendArchetypeName(index: index, depth: depth)
            }
            depth += 1
        }
        if depth < childCount(node), !forDisplay {
            append(" where ")
            guard printChildren(node, from: depth) else { return false }
        }
        out.append(UInt8(ascii: ">"))
        return true
    }

    /// `A`, `B`, … for depth 0, `A1`, `B1`, … for depth 1 (the library's `archetypeName`).
    private mutating func appendArchetypeName(index: Int, depth: Int) {
        var index = index
        repeat {
            out.append(UInt8(ascii: "A") + UInt8(index % 26))
            index /= 26
        } while index > 0
        if depth != 0 {
            for digit in String(depth).utf8 { out.append(digit) }
        }
    }
}
