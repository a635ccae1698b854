/* Provenance statistics (`trueline-cc --trueline-stats`), shared by the wrapper and the hook preloaded into
 * ccache (wrapper/hook/). */
#include "provenance/prov_stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- statistics ----
 * One file per counter under $XDG_CACHE_HOME/trueline/provenance-stats/; an event appends one byte
 * (O_APPEND writes are atomic, so concurrent compiles never lose a count and need no lock) and the
 * count is the file's size. Cheapest on the hit path: open, write, close (a locked read-modify-write
 * of one text file cost 0.14 ms CPU in a fresh process, and ftruncate+rewrite on ext4 2.9 ms).
 * Bounded: once a counter's file passes FOLD_AT bytes, the process that noticed folds it into the
 * counter's `.base` file (a decimal number, replaced by rename) under an exclusive flock and truncates it.
 * Appenders take no lock, so an event landing between the fold's read and its truncate (microseconds, once
 * per FOLD_AT events) can be lost: statistics, not accounting. */
#define FOLD_AT (1L << 20)

static const char *const stat_names[TLCC_STAT_N] = {
    [TLCC_STAT_VERIFIED] = "verified", [TLCC_STAT_MISMATCH] = "mismatch", [TLCC_STAT_NO_NOTE] = "no_note",
    [TLCC_STAT_RECOMPILED] = "recompiled", [TLCC_STAT_STAMPED] = "stamped", [TLCC_STAT_UNBOUND] = "unbound",
};

/* The counter's file (which < 0: their directory), on the heap: path buffers on the stack (8 KiB) took two
 * fresh stack pages, page faults, on every verified hit. NULL without a cache directory. snprintf, not
 * tlcc_concatn: the hook shares this file and links no strv.c. */
static char *stats_path(const tlcc_stats_home *where, int which)
{
    const char *x = where->xdg_cache_home, *home = where->home;
    const char *base = x && *x ? x : home && *home ? home : NULL;
    const char *mid = x && *x ? "/trueline/provenance-stats" : "/.cache/trueline/provenance-stats";
    const char *name = which >= 0 ? stat_names[which] : "";
    if (!base)
        return NULL;
    size_t n = strlen(base) + strlen(mid) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s%s", base, mid, which >= 0 ? "/" : "", name);
    return p;
}

static void make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0777);
            *p = '/';
        }
    mkdir(path, 0777);
}

static long read_base(const char *base)
{
    char buf[32] = { 0 };
    int fd = open(base, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n > 0 ? strtol(buf, NULL, 10) : 0;
}

/* Moves the count in fd's file (its size) into path.base. */
static void fold(int fd, const char *path)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        return; /* another process is folding it */
    struct stat st;
    size_t n = strlen(path) + 16;
    char *base = malloc(n), *tmp = malloc(n + 24);
    if (base && tmp && fstat(fd, &st) == 0 && st.st_size >= FOLD_AT) {
        snprintf(base, n, "%s.base", path);
        snprintf(tmp, n + 24, "%s.%ld.tmp", base, (long)getpid());
        char num[32];
        int len = snprintf(num, sizeof num, "%ld\n", read_base(base) + (long)st.st_size);
        int t = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (t >= 0) {
            int ok = write(t, num, (size_t)len) == len;
            if (close(t) == 0 && ok && rename(tmp, base) == 0)
                (void)!ftruncate(fd, 0);
            else
                unlink(tmp);
        }
    }
    free(base);
    free(tmp);
    flock(fd, LOCK_UN);
}

void tlcc_stats_add(const tlcc_stats_home *where, enum tlcc_stat which, int delta)
{
    char *path = delta > 0 ? stats_path(where, which) : NULL;
    if (!path)
        return;
    /* O_NONBLOCK: a FIFO put where a counter goes must not block the compile (it fails ENXIO without a reader) */
    int fd = openat(AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0 && errno == ENOENT) {
        char *dir = stats_path(where, -1);
        if (dir)
            make_dirs(dir);
        free(dir);
        fd = openat(AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    }
    if (fd < 0) {
        free(path);
        return; /* statistics never fail a build */
    }
    char ones[64];
    memset(ones, '1', sizeof ones);
    while (delta > 0) {
        int n = delta < (int)sizeof ones ? delta : (int)sizeof ones;
        if (write(fd, ones, (size_t)n) != n)
            break;
        delta -= n;
    }
    /* with O_APPEND the offset after the write is the file's size: no extra stat on the hit path */
    if (lseek(fd, 0, SEEK_CUR) >= FOLD_AT)
        fold(fd, path);
    free(path);
    close(fd);
}

void tlcc_stats_zero(const tlcc_stats_home *where)
{
    for (int i = 0; i < TLCC_STAT_N; i++) {
        char *path = stats_path(where, i);
        if (path && truncate(path, 0) != 0 && errno != ENOENT) {
            /* nothing to report: statistics are best effort */
        }
        char *base = path ? malloc(strlen(path) + 6) : NULL;
        if (base) {
            sprintf(base, "%s.base", path);
            unlink(base);
        }
        free(base);
        free(path);
    }
}

int tlcc_stats_print(const tlcc_stats_home *where)
{
    long v[TLCC_STAT_N] = { 0 };
    char *dir = stats_path(where, -1);
    for (int i = 0; dir && i < TLCC_STAT_N; i++) {
        struct stat st;
        char *path = stats_path(where, i);
        if (path && stat(path, &st) == 0)
            v[i] = (long)st.st_size;
        char *base = path ? malloc(strlen(path) + 6) : NULL;
        if (base) {
            sprintf(base, "%s.base", path);
            v[i] += read_base(base);
        }
        free(base);
        free(path);
    }
    printf("Provenance (trueline-cc, %s)\n", dir ? dir : "no cache directory");
    free(dir);
    printf("  Objects stamped:              %8ld\n", v[TLCC_STAT_STAMPED]);
    printf("  Cached compiles verified:     %8ld\n", v[TLCC_STAT_VERIFIED]);
    printf("  Mismatches:                   %8ld\n", v[TLCC_STAT_MISMATCH]);
    printf("  Objects without a record:     %8ld\n", v[TLCC_STAT_NO_NOTE]);
    printf("  Recompiled after a mismatch:  %8ld\n", v[TLCC_STAT_RECOMPILED]);
    printf("  Verified, not content-bound:  %8ld\n", v[TLCC_STAT_UNBOUND]);
    return 0;
}
