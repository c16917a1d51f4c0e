import CProcessControl

/// How glibc's allocator gives memory back: set once, before a command's work. (How it caches
/// freed blocks is set before Swift runs: `Sources/CTestscopeStart/Start.c`.)
public enum MallocPolicy {
    /// Blocks of 256 KiB or more get a mapping of their own, unmapped when freed. glibc's default
    /// threshold (128 KiB) rises to the size of each such block freed, up to 32 MiB: after the 3.5 MB
    /// profile of the 400-file benchmark package was freed, every later array under that size (the
    /// indexes, the names, JSON and page buffers) came from the heap, whose freed pages stay
    /// resident. Fixed, the peak RSS of a JSON report of that package fell by 1.9 MB and of an HTML
    /// one by 0.6 MB (median of 5). 64 KiB saved as much, but an HTML report faulted 22,671 pages
    /// instead of 6,127 (its page buffers mapped and unmapped page after page) and took 5 % more CPU.
    /// `MappingBytes`' pieces are this size, so that each one freed leaves the process.
    public static func apply() {
        _ = testscope_set_mmap_threshold(256 * 1024)
    }
}
