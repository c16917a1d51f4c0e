// A stand-in standard library (module Swift, -parse-stdlib): the Swift Mach-O fixtures need no SDK.
precedencegroup AssignmentPrecedence { assignment: true associativity: right }

public struct Bool {
    var value: Builtin.Int1
    init(_ v: Builtin.Int1) { value = v }
    public func _getBuiltinLogicValue() -> Builtin.Int1 { return value }
}

public struct Int {
    var value: Builtin.Int64
    init(_ v: Builtin.Int64) { value = v }
}

func less(_ a: Int, _ b: Int) -> Bool { return Bool(Builtin.cmp_slt_Int64(a.value, b.value)) }
func equal(_ a: Int, _ b: Int) -> Bool { return Bool(Builtin.cmp_eq_Int64(a.value, b.value)) }
func minus(_ a: Int, _ b: Int) -> Int { return Int(Builtin.sub_Int64(a.value, b.value)) }
func plus(_ a: Int, _ b: Int) -> Int { return Int(Builtin.add_Int64(a.value, b.value)) }

func classify(_ n: Int, _ zero: Int, _ one: Int) -> Int {
    if less(n, zero) {
        return minus(zero, one)
    } else if equal(n, zero) {
        return zero
    }
    var k = n
    var steps = zero
    while less(one, k) {
        k = minus(k, one)
        steps = plus(steps, one)
    }
    return steps
}

struct Box {
    var item: Int
    func get(_ flag: Bool) -> Int {
        guard flag else { return item }
        return item
    }
}

func neverCalled(_ n: Int) -> Int {
    return n
}

// Appended to x.swift for the ELF twin that is run (x_run.swift): the functions above keep their lines.
let zero = Int(Builtin.zeroInitializer())
let one = Int(Builtin.zext_Int1_Int64(Builtin.cmp_eq_Int64(zero.value, zero.value)))
let three = plus(plus(one, one), one)
_ = classify(three, zero, one)
_ = classify(zero, zero, one)
_ = classify(minus(zero, one), zero, one)
_ = Box(item: one).get(Bool(Builtin.cmp_eq_Int64(zero.value, zero.value)))
