/* Running the compiler: never through a shell; exit status, signals, stdout and stderr pass through.
 * tlcc_run_argv is the one place that decides how the cache and the compiler are invoked, so a later
 * stage (stamping provenance, verifying hits) can re-route it. */
#ifndef TLCC_WRAPPER_RUN_H
#define TLCC_WRAPPER_RUN_H
#include "invocation.h"

/* 1 when the effective argv grew by response/options files past what exec takes (argv.h, TLCC_ARGV_EXEC_MAX):
 * the compiler then gets the arguments as given plus the forced flags, and the folded variables stay in its
 * environment (then hashed in the fingerprint, since a cache does not see them). The analysis, fingerprint
 * and argv hash still use the effective argv; ccache expands @file and -optf itself, so its key follows the
 * files' content (tests/suites/wrapper_argv_edge.sh). */
int tlcc_run_keeps_files(const tlcc_invocation *inv);
/* [cache] compiler effective-args..., NULL-terminated; env edits for the child are applied by
 * tlcc_run_prepare_env. */
/* The compiler's arguments (after its path): the effective argv, or the arguments as given plus the forced
 * flags when response files were too big to expand for exec (tlcc_run_keeps_files). */
void tlcc_run_compiler_args(const tlcc_invocation *inv, tlcc_strv *out);
void tlcc_run_argv(const tlcc_invocation *inv, tlcc_strv *out);
/* Removes folded variables, hands the fingerprint to the cache, marks trueline-cc as active. */
void tlcc_run_prepare_env(const tlcc_invocation *inv);
/* Replaces this process with the compile (status and signals are then the compiler's own).
 * Returns only on failure, with 127 (not found) or 126 (not executable), like a shell would. */
int tlcc_run_exec(const tlcc_invocation *inv);
/* Fork, exec, wait; returns the raw wait status (for stages that must act after the compile). */
int tlcc_run_wait(char *const argv[]);
/* Ends this process the way the child ended: same exit status, or the same signal re-raised. */
void tlcc_exit_like(int status) __attribute__((noreturn));
/* Runs argv (argv[0] a path) with the environment untouched: the unwrapped fallback. */
int tlcc_run_unwrapped(char *const argv[]);

#endif
