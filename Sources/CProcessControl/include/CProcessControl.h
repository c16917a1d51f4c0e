// What Swift cannot call or must not do in a signal handler: prctl (variadic), the signal handler
// itself, the registry of children it reads, and the terminal state it restores.
#ifndef TESTSCOPE_PROCESS_CONTROL_H
#define TESTSCOPE_PROCESS_CONTROL_H

/// Makes this process the reaper of its descendants' orphans (Linux `PR_SET_CHILD_SUBREAPER`);
/// 0 on success, -1 where it does not exist.
int testscope_set_child_subreaper(void);
/// glibc's `mallinfo2()`: bytes in use in the arenas, free in them, and in blocks mapped on their
/// own (`TESTSCOPE_TIMING`'s memory breakdown); -1 where it does not exist.
int testscope_heap_stats(long *in_use, long *free_bytes, long *mapped);

/// Installs the handler of SIGINT, SIGTERM and SIGHUP: the first signal writes its number (one
/// byte) to `notify_fd`, where a thread waits to clean up; a second kills every tracked child
/// (and the groups they lead) with SIGKILL and tells the cleanup to wait no longer; a third also
/// restores the terminal and exits with `exit_status` at once.
int testscope_install_interrupt_handler(int notify_fd, int exit_status);
/// 1 once a second signal asked the cleanup not to give the children time to end.
int testscope_interrupt_hurried(void);
/// 1 once the handler has seen a signal (set in the handler itself, before the cleanup thread runs).
int testscope_interrupt_received(void);

/// Saves the terminal state of standard input (when it is a terminal), to be restored on interrupt.
void testscope_save_terminal(void);
/// Restores the state `testscope_save_terminal` saved (async-signal-safe).
void testscope_restore_terminal(void);

/// Records a child this process spawned (`leads_group`: it leads a process group of its own);
/// 0, or -1 when the table is full.
int testscope_track_child(int pid, int leads_group);
/// Forgets a child once it has been reaped.
void testscope_untrack_child(int pid);
/// Copies up to `capacity` tracked children into `pids` and `leads_group`; returns how many.
int testscope_tracked_children(int *pids, int *leads_group, int capacity);

#endif
