/// `SymbolDemangler`'s fixed-size buffers and the storage that owns their memory.
extension SymbolDemangler {
    /// Owns the buffers' memory.
    final class Storage {
        private var deallocations: [() -> Void] = []

        func buffer<T>(_ capacity: Int, _ initial: T) -> FixedBuffer<T> {
            let base = UnsafeMutablePointer<T>.allocate(capacity: capacity)
            base.initialize(repeating: initial, count: capacity)
            deallocations.append { base.deinitialize(count: capacity); base.deallocate() }
            return FixedBuffer(base: base, capacity: capacity)
        }

        deinit { for deallocate in deallocations { deallocate() } }
    }

    /// A buffer of at most `capacity` elements that remembers when more were appended. Reads are
    /// kept inside the (initialised) memory, so a symbol that overflowed only gives a wrong answer,
    /// which is then thrown away.
    struct FixedBuffer<T> {
        let base: UnsafeMutablePointer<T>
        let capacity: Int
        var count = 0
        var overflowed = false

        init(base: UnsafeMutablePointer<T>, capacity: Int) {
            self.base = base
            self.capacity = capacity
        }

        subscript(i: Int) -> T { base[i >= 0 && i < capacity ? i : 0] }

        var last: T? { count > 0 ? base[count - 1] : nil }
        var buffer: UnsafeBufferPointer<T> { UnsafeBufferPointer(start: base, count: count) }

        mutating func append(_ element: T) {
            guard count < capacity else { overflowed = true; return }
            base[count] = element
            count += 1
        }

        mutating func append(contentsOf elements: UnsafeBufferPointer<T>) {
            guard count + elements.count <= capacity, let source = elements.baseAddress else {
                if !elements.isEmpty { overflowed = true }
                return
            }
            (base + count).update(from: source, count: elements.count)
            count += elements.count
        }

        mutating func popLast() -> T? {
            guard count > 0 else { return nil }
            count -= 1
            return base[count]
        }

        mutating func removeAll(keeping kept: Int = 0) {
            count = kept
            overflowed = false
        }
    }
}
