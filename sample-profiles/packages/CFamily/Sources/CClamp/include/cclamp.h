#ifndef CCLAMP_H
#define CCLAMP_H

/* A function-like macro used in code: each use is an *expansion region* in the
   caller's mapping, with the macro body as a region in a second file id. */
#define CCLAMP_MIN(a, b) ((a) < (b) ? (a) : (b))

/* Clamp x into [lo, hi]; `&&`, `||` and `if` give branch regions and gap regions. */
int cclamp(int x, int lo, int hi);

/* 1 when x is in [lo, hi] (one `&&` condition, both sides counted as branches). */
int cclamp_in_range(int x, int lo, int hi);

/* Never called from the tests: count 0. */
int cclamp_unused(int x);

/* A static inline function in a header, never called: clang still writes a coverage record
   for it in every translation unit that includes the header (an unused-function "dummy"
   record, named `<file>:cclamp_sq` because it is static). */
static inline int cclamp_sq(int x) {
    return x * x;
}

#endif
