#include "CProcessControl.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif

int testscope_set_child_subreaper(void) {
#ifdef __linux__
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#else
    return -1;
#endif
}

int testscope_heap_stats(long *in_use, long *free_bytes, long *mapped) {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 info = mallinfo2();
    *in_use = (long)info.uordblks;
    *free_bytes = (long)info.fordblks;
    *mapped = (long)info.hblkhd;
    return 0;
#else
    *in_use = *free_bytes = *mapped = 0;
    return -1;
#endif
}

// The children table: plain atomics, so the signal handler can read it without a lock. A slot
// holds pid << 1 | leads_group, 0 when free. 4096 is far above what Testscope runs at once
// (a test process per parallel worker, a build, a few llvm tools).
#define TRACKED_CAPACITY 4096
static _Atomic long tracked[TRACKED_CAPACITY];

int testscope_track_child(int pid, int leads_group) {
    long value = ((long)pid << 1) | (leads_group ? 1 : 0);
    for (int i = 0; i < TRACKED_CAPACITY; i++) {
        long expected = 0;
        if (atomic_compare_exchange_strong(&tracked[i], &expected, value)) return 0;
    }
    return -1;
}

void testscope_untrack_child(int pid) {
    for (int i = 0; i < TRACKED_CAPACITY; i++) {
        long value = atomic_load(&tracked[i]);
        if (value != 0 && (value >> 1) == pid) {
            atomic_store(&tracked[i], 0);
            return;
        }
    }
}

int testscope_tracked_children(int *pids, int *leads_group, int capacity) {
    int count = 0;
    for (int i = 0; i < TRACKED_CAPACITY && count < capacity; i++) {
        long value = atomic_load(&tracked[i]);
        if (value == 0) continue;
        pids[count] = (int)(value >> 1);
        leads_group[count] = (int)(value & 1);
        count++;
    }
    return count;
}

static struct termios saved_terminal;
static atomic_int terminal_saved;

void testscope_save_terminal(void) {
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_terminal) == 0) atomic_store(&terminal_saved, 1);
}

void testscope_restore_terminal(void) {
    if (atomic_load(&terminal_saved)) tcsetattr(STDIN_FILENO, TCSANOW, &saved_terminal);
}

static atomic_int signals_seen;
static atomic_int hurried;
static int notify_descriptor = -1;
static int interrupted_status = 130;

int testscope_interrupt_hurried(void) { return atomic_load(&hurried); }
int testscope_interrupt_received(void) { return atomic_load(&signals_seen) > 0; }

// Only async-signal-safe calls: write, kill, tcsetattr, _exit.
static void on_interrupt(int signo) {
    int seen = atomic_fetch_add(&signals_seen, 1);
    if (seen == 0) {
        unsigned char byte = (unsigned char)signo;
        ssize_t ignored = write(notify_descriptor, &byte, 1);
        (void)ignored;
        return;
    }
    for (int i = 0; i < TRACKED_CAPACITY; i++) {
        long value = atomic_load(&tracked[i]);
        if (value == 0) continue;
        if (value & 1) kill(-(pid_t)(value >> 1), SIGKILL);
        kill((pid_t)(value >> 1), SIGKILL);
    }
    if (seen == 1) {
        atomic_store(&hurried, 1);
        return;
    }
    testscope_restore_terminal();
    _exit(interrupted_status);
}

int testscope_install_interrupt_handler(int notify_fd, int exit_status) {
    notify_descriptor = notify_fd;
    interrupted_status = exit_status;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    return 0;
}
