/* Running another program: exec, spawn-and-wait with signal forwarding, and ending this process the way a
 * child ended. Never through a shell; exit status, signals, stdout and stderr pass through. A leaf: it knows
 * nothing of compilers, caches or provenance. */
#ifndef TLCC_WRAPPER_PROCESS_H
#define TLCC_WRAPPER_PROCESS_H

/* Replaces this process with argv (argv[0] a path; status and signals are then the program's own).
 * Returns only on failure, with 127 (not found) or 126 (not executable), like a shell, after saying why. */
int tlcc_process_exec(char *const argv[]);
/* Starts argv, forwards SIGINT/TERM/HUP/QUIT to it, waits; returns the raw wait status (a failed exec is
 * reported and returned as exit status 127 or 126). */
int tlcc_process_wait(char *const argv[]);
/* Ends this process the way the child ended: same exit status, or the same signal re-raised. */
void tlcc_process_exit_like(int status) __attribute__((noreturn));

#endif
