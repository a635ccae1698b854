/* Growable NULL-terminated string vectors: argv editing is most of what the wrapper does. */
#ifndef TLCC_WRAPPER_STRV_H
#define TLCC_WRAPPER_STRV_H
#include <string.h>

typedef struct tlcc_strv {
    char **v; /* always NULL-terminated once anything was pushed */
    int n, cap;
} tlcc_strv;

void tlcc_strv_push(tlcc_strv *s, const char *str);
/* Takes str (malloc'd) itself instead of a copy; NULL pushes nothing. */
void tlcc_strv_push_owned(tlcc_strv *s, char *str);
void tlcc_strv_pushf(tlcc_strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tlcc_strv_insert(tlcc_strv *s, int at, const char *str);
/* Replaces s[at, at+drop) by copies of ins in one move: folding a long options file stays linear. */
void tlcc_strv_splice(tlcc_strv *s, int at, int drop, const tlcc_strv *ins);
void tlcc_strv_replace(tlcc_strv *s, int at, const char *str);
void tlcc_strv_append(tlcc_strv *s, const tlcc_strv *from);
void tlcc_strv_free(tlcc_strv *s);
/* Joins with single spaces (for messages only: not a quoting-preserving rendering). */
char *tlcc_strv_join(const tlcc_strv *s, int from);

/* Pieces as (pointer, length) pairs, up to a NULL pointer, copied into one malloc'd string: the memo's keys
 * and values are joined from paths whose lengths are already known. */
char *tlcc_concatn(const char *s, ...);
#define TLCC_S(str) (str), strlen(str) /* a NUL-ended piece */

/* snprintf for paths: truncation is checked by the callers' later stat/open, not by -Wformat-truncation. */
int tlcc_fmt(char *dst, unsigned long cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
