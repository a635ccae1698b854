/* Error records: every failure names the file and what is wrong, so callers can report and move on. */
#ifndef TRUELINE_DIAG_H
#define TRUELINE_DIAG_H
#include <stdarg.h>

#define TL_ERR_MAX 512

typedef struct tl_error {
    char msg[TL_ERR_MAX];
} tl_error;

/* Formats into err (if non-NULL) and returns -1, so readers can `return tl_fail(err, ...)`. */
int tl_fail(tl_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tl_vfail(tl_error *err, const char *fmt, va_list ap);

/* Prints "PROG: FILE: message" to stderr; FILE may be NULL. */
void tl_report_error(const char *prog, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Exit statuses shared by both tools. */
enum { TL_EXIT_OK = 0, TL_EXIT_FINDINGS = 1, TL_EXIT_BAD_INPUT = 2 };

#endif
