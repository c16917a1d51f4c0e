/* Preloaded into `testscope` by scripts/bench (built into bench-work/).
 * /usr/bin/time reports the largest peak RSS of a process and of all the
 * subprocesses it waited for, so it cannot tell testscope's own memory from
 * that of the `swift package describe` it may run. At exit this writes the
 * process's own peak RSS (VmHWM, KiB), CPU seconds (its own, and its
 * waited-for subprocesses') and its RSS before main (VmRSS once the runtime
 * and libraries are loaded, KiB) to $BENCH_PROC_STATS_FILE. Only acts in a process whose
 * executable is named by $BENCH_PROC_STATS_EXE; there it drops LD_PRELOAD so
 * that the subprocesses it starts are not preloaded. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

static int active;
static long start_rss = -1;

static long status_kb(const char *field) {
    FILE *st = fopen("/proc/self/status", "r");
    char line[256], name[64];
    long value = -1, v;
    if (!st) return -1;
    while (fgets(line, sizeof line, st))
        if (sscanf(line, "%63[^:]: %ld kB", name, &v) == 2 && strcmp(name, field) == 0) { value = v; break; }
    fclose(st);
    return value;
}

static double secs(struct timeval tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

__attribute__((constructor)) static void bench_init(void) {
    const char *want = getenv("BENCH_PROC_STATS_EXE");
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!want || n <= 0) return;
    exe[n] = 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    if (strcmp(base, want) != 0) return;
    active = 1;
    unsetenv("LD_PRELOAD");
    start_rss = status_kb("VmRSS");
}

__attribute__((destructor)) static void bench_fini(void) {
    if (!active) return;
    const char *out = getenv("BENCH_PROC_STATS_FILE");
    long hwm = status_kb("VmHWM");
    if (!out) return;
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    FILE *f = fopen(out, "w");
    if (!f) return;
    fprintf(f, "%ld %.3f %.3f %ld\n", hwm, secs(self.ru_utime) + secs(self.ru_stime),
            secs(kids.ru_utime) + secs(kids.ru_stime), start_rss);
    fclose(f);
}
