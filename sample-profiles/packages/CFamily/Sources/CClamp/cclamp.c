#include "cclamp.h"

/* A second macro, object-like, that expands to a statement: another expansion region. */
#define CCLAMP_TRACE(counter) do { (counter)++; } while (0)

static int calls = 0;

int cclamp(int x, int lo, int hi) {
    CCLAMP_TRACE(calls);
    if (lo > hi) {              /* never true in the tests: branch (n, 0) */
        return lo;
    }
    if (x < lo) {
        return lo;
    }
    return CCLAMP_MIN(x, hi);   /* macro expansion with a ?: inside */
}

int cclamp_in_range(int x, int lo, int hi) {
    if (x >= lo && x <= hi) {   /* `&&`: two branch regions, one per condition */
        return 1;
    }
    return 0;
}

int cclamp_unused(int x) {
    if (x > 0 || x < -10) {     /* `||` never evaluated: branch regions with (0, 0) */
        return 1;
    }
    return 0;
}
