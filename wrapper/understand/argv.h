/* The effective argv: what the compiler really receives once the driver's hidden inputs are folded in
 * (response files, nvcc -optf, NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS, clang's CCC_OVERRIDE_OPTIONS).
 * Folded variables are removed from the child's environment so nothing is applied twice. */
#ifndef TLCC_WRAPPER_ARGV_H
#define TLCC_WRAPPER_ARGV_H
#include <stdio.h>

#include "understand/invocation.h"

/* Fills inv->args (from inv->user_args), inv->folds and inv->unset_env. Returns -1 with err when an
 * input named by the arguments cannot be read (e.g. an -optf file). */
int tlcc_effective_argv(tlcc_invocation *inv, tl_error *err);

/* Linux's exec refuses (E2BIG) arguments plus environment over ARG_MAX (a quarter of the stack limit, 2 MiB
 * by default) and any single string over MAX_ARG_STRLEN (128 KiB). Response and options files exist to get
 * past that, so their expansion can be too big to exec: past this size (strings and pointers, or one
 * string), the compiler gets the files themselves (tlcc_argv_keeps_files). Fixed, not sysconf(_SC_ARG_MAX): no system
 * call, and well under the limit left beside any environment. */
#define TLCC_ARGV_EXEC_MAX (128 * 1024)
int tlcc_argv_exec_too_big(const tlcc_strv *args);
/* 1 when the effective argv grew by response/options files past what exec takes: the compiler then gets
 * the arguments as given plus the forced flags, and the folded variables stay in its environment (then
 * hashed in the fingerprint, since a cache does not see them). The analysis, fingerprint and argv hash
 * still use the effective argv; ccache expands @file and -optf itself, so its key follows the files'
 * content (tests/suites/wrapper_argv_edge.sh). */
int tlcc_argv_keeps_files(const tlcc_invocation *inv);
/* The compiler's arguments as exec gets them (after its path): the effective argv, or the arguments as
 * given plus the forced flags (tlcc_argv_keeps_files). */
void tlcc_argv_for_exec(const tlcc_invocation *inv, tlcc_strv *out);
/* inv->argv_hex: the effective argv's hash as records carry it (`ah`, tl_note_argv_hash: the output
 * operand left out, so that compiles differing only in where the object goes agree). */
void tlcc_argv_hash(tlcc_invocation *inv);

/* nvcc 13's split of NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS (measured, see docs/wrapper.md): whitespace
 * separates words, double quotes group and stay in the word, single quotes do not group. Returns -1
 * (nothing pushed) when the value holds a backslash, which nvcc itself refuses. */
int tlcc_nvcc_env_split(const char *s, tlcc_strv *out);
/* nvcc's split of an -optf file: whitespace separates, double quotes group and are removed, a
 * backslash escapes the next character, single quotes are ordinary. */
void tlcc_nvcc_optf_split(const char *s, tlcc_strv *out);
/* clang's CCC_OVERRIDE_OPTIONS applied to args (args->v[0] is the program, never edited); the
 * driver's "### ..." report lines go to log (NULL: silent) unless the script starts with '#'. */
void tlcc_ccc_override(tlcc_strv *args, const char *script, FILE *log);

#endif
