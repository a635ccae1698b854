/* Growable NULL-terminated string vectors: argv editing is most of what the wrapper does. */
#ifndef TL_WRAPPER_STRV_H
#define TL_WRAPPER_STRV_H
#include <string.h>

typedef struct tl_strv {
    char **v; /* always NULL-terminated once anything was pushed */
    int n, cap;
} tl_strv;

void tl_strv_push(tl_strv *s, const char *str);
/* Takes str (malloc'd) itself instead of a copy; NULL pushes nothing. */
void tl_strv_push_owned(tl_strv *s, char *str);
void tl_strv_pushf(tl_strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_strv_insert(tl_strv *s, int at, const char *str);
/* Replaces s[at, at+drop) by copies of ins in one move: folding a long options file stays linear. */
void tl_strv_splice(tl_strv *s, int at, int drop, const tl_strv *ins);
void tl_strv_replace(tl_strv *s, int at, const char *str);
void tl_strv_append(tl_strv *s, const tl_strv *from);
void tl_strv_free(tl_strv *s);
/* Joins with single spaces (for messages only: not a quoting-preserving rendering). */
char *tl_strv_join(const tl_strv *s, int from);

/* Pieces as (pointer, length) pairs, up to a NULL pointer, copied into one malloc'd string. snprintf's
 * price on a warm hit is what this saves: musl formats byte by byte, and the keys are mostly paths. */
char *tl_concatn(const char *s, ...);
#define TL_S(str) (str), strlen(str) /* a NUL-ended piece */

/* snprintf for paths: truncation is checked by the callers' later stat/open, not by -Wformat-truncation. */
int tl_fmt(char *dst, unsigned long cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
