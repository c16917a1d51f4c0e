// The testscope executable's start, before any Swift code runs.
#ifndef TESTSCOPE_START_H
#define TESTSCOPE_START_H

/// 1 when this process was started again by the start-up below (glibc's tunables set for it), else 0.
/// Calling it also keeps the start-up linked into the executable.
int testscope_started_with_malloc_tunables(void);

#endif
