/* Shared by the hardening_regress* unit tests: replays the files under tests/data/regress/<target>/ through a table of renamed
 * fuzz entry points. (Two binaries because the wrapper's and the checker's headers cannot meet in one unit.) */
#ifndef TL_REGRESS_REPLAY_H
#define TL_REGRESS_REPLAY_H
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

struct regress_target {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
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
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    *n = len;
    return buf;
}

/* Returns the number of inputs replayed. A crash kills the binary, which the runner reports; returning is the pass
 * condition. TRUELINE_ROOT (set by tests/run.sh) locates the data from any directory. */
static size_t regress_replay(const struct regress_target *targets, size_t ntargets)
{
    const char *root = getenv("TRUELINE_ROOT");
    char dir[4096], path[8192];
    size_t total = 0;
    for (size_t t = 0; t < ntargets; t++) {
        snprintf(dir, sizeof dir, "%s/tests/data/regress/%s", root ? root : ".", targets[t].name);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            size_t n = 0;
            unsigned char *data = slurp(path, &n);
            UNIT_CHECK(path, data != NULL);
            if (!data)
                continue;
            char label[600];
            snprintf(label, sizeof label, "%s/%s replays cleanly", targets[t].name, de->d_name);
            UNIT_CHECK(label, targets[t].fn(data, n) == 0);
            free(data);
            total++;
        }
        closedir(d);
    }
    return total;
}

#endif
