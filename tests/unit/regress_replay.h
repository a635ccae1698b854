/* Shared by the hardening_regress* unit tests: replays the files under tests/data/regress/<target>/ through a table of renamed
 * fuzz entry points. (Two binaries because the wrapper's and the checker's headers cannot meet in one unit.) */
#ifndef TL_REGRESS_REPLAY_H
#define TL_REGRESS_REPLAY_H
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

struct regress_target {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
    /* What the code under test made of the input, as one line (an error record, what was read): compared with
     * the input's line in tests/data/regress/expected, which states the invariant its bug broke. */
    void (*describe)(const uint8_t *, size_t, char *out, size_t outn);
};

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    *n = len;
    return buf;
}

/* appendf: appends to a fixed buffer, truncating */
static void appendf(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void appendf(char *out, size_t n, const char *fmt, ...)
{
    size_t used = strlen(out);
    if (used + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, n - used, fmt, ap);
    va_end(ap);
}

/* The expectation for "target/name" from tests/data/regress/expected (lines "target/name<TAB>text"), or NULL. */
static char *regress_expected(const char *root, const char *id)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/tests/data/regress/expected", root);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *want = NULL;
    size_t idn = strlen(id);
    while (!want && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, id, idn) == 0 && line[idn] == '\t')
            want = strdup(line + idn + 1);
    }
    fclose(f);
    return want;
}

/* Returns the number of inputs replayed. Each input goes through its fuzz entry point (whose own property checks
 * abort, and under `make asan` the sanitizers that found the bug watch it), then through describe, whose line
 * must contain the expected text. TRUELINE_ROOT (set by tests/run.sh) locates the data from any directory. */
static size_t regress_replay(const struct regress_target *targets, size_t ntargets)
{
    const char *root = getenv("TRUELINE_ROOT");
    char dir[4096], path[8192], id[600], got[4096];
    size_t total = 0;
    root = root ? root : ".";
    for (size_t t = 0; t < ntargets; t++) {
        snprintf(dir, sizeof dir, "%s/tests/data/regress/%s", root, targets[t].name);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            snprintf(id, sizeof id, "%s/%s", targets[t].name, de->d_name);
            size_t n = 0;
            unsigned char *data = slurp(path, &n);
            UNIT_CHECK(path, data != NULL);
            if (!data)
                continue;
            char *want = regress_expected(root, id);
            char label[1200];
            snprintf(label, sizeof label, "%s: an expectation in tests/data/regress/expected", id);
            UNIT_CHECK(label, want != NULL);
            if (targets[t].fn)
                targets[t].fn(data, n);
            got[0] = 0;
            targets[t].describe(data, n, got, sizeof got);
            snprintf(label, sizeof label, "%s: %s", id, want ? want : "(none)");
            UNIT_CHECK(label, want && strstr(got, want) != NULL);
            if (!want || !strstr(got, want))
                printf("    got: %s\n", got);
            free(want);
            free(data);
            total++;
        }
        closedir(d);
    }
    return total;
}

#endif
