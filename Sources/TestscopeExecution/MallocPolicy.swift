import CProcessControl

/// How glibc's allocator caches and gives back memory: set once, before a command's work.
public enum MallocPolicy {
    /// Starts the command again, at once, with glibc's per-thread caches of freed blocks holding
    /// 1,000 blocks of each size instead of 7 (`GLIBC_TUNABLES`, which glibc reads only at start-up;
    /// the started process removes it again, so the processes it starts do not inherit it). A
    /// report's blocks are made on one core and freed on another; past 7, each free locked the
    /// arena of the thread that made the block, and the two threads waited on each other (a text
    /// report of the 400-file package made 618 futex calls, 1,986 with one arena for all). With
    /// 1,000: CPU −7 to −11 %, wall −4 to −10 % (text, LCOV, JSON, medians of 11 to 21 alternated
    /// runs); peak RSS within 1 % at 400 and 800 files (5,000 added 7 % to an HTML report's).
    /// A `GLIBC_TUNABLES` the user set is kept as it is. Costs one `execve` (not measurable here).
    public static func startWithLargerThreadCaches() {
        testscope_tune_malloc(CommandLine.unsafeArgv)
    }

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
