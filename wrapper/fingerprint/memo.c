#include "fingerprint/memo.h"
#include "trueline/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fingerprint/bytes.h"
#include "fingerprint/deps.h"
#include "fingerprint/memo_file.h"
#include "strv.h"

#define MEMO_FILE "memo-v2"
/* The format before records carried their lengths; removed by the next writer (never read). */
#define MEMO_FILE_V1 "memo-v1"
/* Bounded so a long-lived cache never grows without limit: the oldest half is dropped beyond this. */
#define MEMO_MAX_ENTRIES 4096

/* A loaded entry points into the file's read-only mapping, not NUL-terminated: mapping instead of reading
 * saves a page fault per 4 KiB of memo (~1.5 us each here) and the copy. A value is copied out, terminated,
 * when it is first looked up. */
struct entry {
    const char *key, *val;
    unsigned klen, vlen; /* klen compared first: most keys share a prefix ("r\x1f", "f:/usr/..."); a record's
                          * lengths have at most 8 hex digits */
    unsigned char fresh; /* added by this process */
    unsigned char key_owned, val_owned; /* our own NUL-terminated copies; else they point into a mapping */
};

struct mapping {
    void *p;
    size_t len;
};

struct tlcc_memo {
    char *dir;
    struct entry *e; /* what this process added, and what it looked up through the index */
    int n, cap, dirty;
    struct mapping *maps; /* loaded files the entries point into */
    int nmaps;
    tlcc_memo_index ix; /* the loaded file's index (memo_file.h); ix.table NULL: its records are all in e */
    const char *map;
    size_t maplen;
    int fd; /* the indexed file's, open until tlcc_memo_close: on a hit the exec closes it (O_CLOEXEC), a
               system call less on every compile; -1 when none */
    tlcc_deps_ctx *deps; /* the run's (tlcc_memo_open), else own_deps */
    tlcc_deps_ctx own_deps;
};

static int grow(tlcc_memo *m)
{
    if (m->n < m->cap)
        return 0;
    int cap = m->cap ? m->cap * 2 : 64;
    struct entry *e = realloc(m->e, (size_t)cap * sizeof *e);
    if (!e)
        return -1;
    m->e = e;
    m->cap = cap;
    return 0;
}

static void add(tlcc_memo *m, const char *key, const char *val, int fresh)
{
    if (grow(m) != 0)
        return;
    char *k = strdup(key), *v = strdup(val);
    if (!k || !v) {
        free(k);
        free(v);
        return;
    }
    m->e[m->n++] = (struct entry){ k, v, (unsigned)strlen(k), (unsigned)strlen(v), (unsigned char)fresh, 1, 1 };
}

static void free_entries(tlcc_memo *m)
{
    for (int i = 0; i < m->n; i++) {
        if (m->e[i].key_owned)
            free((char *)m->e[i].key);
        if (m->e[i].val_owned)
            free((char *)m->e[i].val);
    }
    free(m->e);
    for (int i = 0; i < m->nmaps; i++)
        munmap(m->maps[i].p, m->maps[i].len);
    free(m->maps);
}

/* Every record, in file order (the index record left out); a malformed one ends the reading (memo_file.h). */
static void parse(tlcc_memo *m, const char *p, const char *end)
{
    tlcc_memo_rec r;
    for (; p < end && tlcc_memo_rec_at(p, end, &r) == 0; p = r.next) {
        if (tlcc_memo_rec_is_index(&r))
            continue;
        if (grow(m) != 0)
            break;
        m->e[m->n++] = (struct entry){ r.key, r.val, (unsigned)r.klen, (unsigned)r.vlen, 0, 0, 0 };
    }
}

/* Maps the file; with an index (and !all) its records are found through it on demand, else all are read. */
static void load(tlcc_memo *m, const char *path, int all)
{
    /* O_NONBLOCK: a FIFO put where the memo goes would block the open (and every compile) forever; anything
     * but a regular file reads as no memo, and the next save renames a regular one over it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return;
    struct stat st;
    struct mapping *maps;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (64 << 20) &&
        (maps = realloc(m->maps, (size_t)(m->nmaps + 1) * sizeof *maps))) {
        m->maps = maps;
        size_t len = (size_t)st.st_size;
        /* trueline-cc replaces the file only by rename, never in place, so the mapping cannot shrink under us
         * (only a person truncating the file by hand while a compile reads it could cause SIGBUS). */
        void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED && len >= sizeof TLCC_MEMO_HEADER - 1 &&
            memcmp(p, TLCC_MEMO_HEADER, sizeof TLCC_MEMO_HEADER - 1) == 0) {
            m->maps[m->nmaps++] = (struct mapping){ p, len };
            const char *from = (const char *)p + sizeof TLCC_MEMO_HEADER - 1, *end = (const char *)p + len;
            if (!all && tlcc_memo_index_open(p, len, &m->ix) == 0) {
                m->map = p, m->maplen = len;
                if (m->fd >= 0)
                    close(m->fd);
                m->fd = fd;
                return;
            }
            /* The index grows by doubling while it is parsed and gives back what it did not fill; room stays
             * for what this run adds. */
            parse(m, from, end);
            struct entry *e;
            if (m->cap > m->n + 16 && (e = realloc(m->e, (size_t)(m->n + 16) * sizeof *e)) != NULL) {
                m->e = e;
                m->cap = m->n + 16;
            }
        } else if (p != MAP_FAILED) {
            munmap(p, len);
        }
    }
    close(fd);
}

tlcc_memo *tlcc_memo_open(const char *dir, tlcc_deps_ctx *deps)
{
    tlcc_memo *m = calloc(1, sizeof *m);
    if (m) {
        m->fd = -1;
        m->deps = deps ? deps : &m->own_deps; /* a tool's or a test's memo alone */
    }
    if (!m || !dir)
        return m;
    m->dir = strdup(dir);
    char *path = tlcc_concatn(TLCC_S(dir), TLCC_S("/" MEMO_FILE), NULL);
    if (path)
        load(m, path, 0);
    free(path);
    return m;
}

/* The entry of key: one added or looked up already (the latest), else the file's record through its index,
 * kept as an entry from then on. The pointer is valid until the next find or add. */
static struct entry *find(tlcc_memo *m, const char *key, size_t n)
{
    for (int i = m->n - 1; i >= 0; i--)
        if (m->e[i].klen == n && memcmp(m->e[i].key, key, n) == 0)
            return &m->e[i];
    tlcc_memo_rec r;
    if (tlcc_memo_index_find(&m->ix, m->map, m->maplen, key, n, &r) != 0 || grow(m) != 0)
        return NULL;
    m->e[m->n] = (struct entry){ r.key, r.val, (unsigned)r.klen, (unsigned)r.vlen, 0, 0, 0 };
    return &m->e[m->n++];
}

/* The value as a C string (copied out of the mapping on first use); NULL when absent or out of memory. */
static const char *lookup(tlcc_memo *m, const char *key)
{
    struct entry *e = find(m, key, strlen(key));
    if (e && !e->val_owned) {
        char *v = malloc(e->vlen + 1);
        if (!v)
            return NULL;
        memcpy(v, e->val, e->vlen);
        v[e->vlen] = 0;
        e->val = v;
        e->val_owned = 1;
    }
    return e ? e->val : NULL;
}


/* A writer killed (kill -9, OOM, power) between creating its temp file and renaming it leaves the temp behind;
 * nothing else would ever remove it. Temps whose writer no longer exists are removed by the next writer; a live
 * writer's temp is never touched (tests/suites/hardening_wrapper.sh). */
static void sweep_stale_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    char path[4200];
    while ((de = readdir(d)) != NULL) {
        long pid, when;
        char tail[8];
        if (sscanf(de->d_name, "." MEMO_FILE ".%ld.%ld.%7s", &pid, &when, tail) != 3 || strcmp(tail, "tmp") != 0 ||
            pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(d);
}

/* Merge with what other processes wrote since we loaded, then replace the file atomically. */
static int save_dirty(tlcc_memo *m, tl_error *err);

/* Most warm runs have nothing to save: the 8 KiB frame below is entered only when there is (touching its
 * bottom is a page fault on every run otherwise). */
int tlcc_memo_save(tlcc_memo *m, tl_error *err)
{
    return m && m->dir && m->dirty ? save_dirty(m, err) : 0;
}

__attribute__((noinline)) static int save_dirty(tlcc_memo *m, tl_error *err)
{
    tlcc_memo now = { .fd = -1 };
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/" MEMO_FILE, m->dir);
    load(&now, path, 1);
    for (int i = 0; i < m->n; i++) {
        if (!m->e[i].fresh)
            continue;
        /* A fresh value replaces the file's: a validated answer (tlcc_memo_put) is re-computed under the same
         * key when what it depended on changed; file hashes and probes never change value under a key. */
        const struct entry *fresh = &m->e[i];
        struct entry *old = find(&now, fresh->key, fresh->klen);
        if (old && (old->vlen != fresh->vlen || memcmp(old->val, fresh->val, fresh->vlen) != 0)) {
            char *v = strdup(fresh->val);
            if (!v)
                continue;
            if (old->val_owned)
                free((char *)old->val);
            old->val = v;
            old->vlen = fresh->vlen;
            old->val_owned = 1;
            old->fresh = 1;
        } else if (!old) {
            add(&now, m->e[i].key, m->e[i].val, 1);
        }
    }
    int from = now.n > MEMO_MAX_ENTRIES ? now.n - MEMO_MAX_ENTRIES / 2 : 0;
    int rc = -1;
    if (tl_mkdirs(m->dir, 0755) != 0) {
        tl_fail(err, "%s: cannot create memo cache directory: %s", m->dir, strerror(errno));
        goto out;
    }
    sweep_stale_temps(m->dir);
    snprintf(tmp, sizeof tmp, "%s/." MEMO_FILE ".%ld.%ld.tmp", m->dir, (long)getpid(), (long)time(NULL));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        tl_fail(err, "%s: cannot write memo cache: %s", tmp, strerror(errno));
        goto out;
    }
    tlcc_memo_rec *recs = malloc((size_t)(now.n - from + 1) * sizeof *recs);
    size_t len = 0;
    char *file = NULL;
    for (int i = from; recs && i < now.n; i++)
        recs[i - from] = (tlcc_memo_rec){ now.e[i].key, now.e[i].val, now.e[i].klen, now.e[i].vlen, NULL };
    if (recs)
        file = tlcc_memo_file_build(recs, now.n - from, &len);
    int bad = !file || tl_write_all(fd, file, len) != 0;
    free(file);
    free(recs);
    if (close(fd) != 0 || bad || rename(tmp, path) != 0) {
        tl_fail(err, "%s: cannot write memo cache: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    m->dirty = 0;
    rc = 0;
    snprintf(tmp, sizeof tmp, "%s/" MEMO_FILE_V1, m->dir);
    unlink(tmp);
out:
    free_entries(&now);
    return rc;
}

int tlcc_memo_read_mode(const tlcc_memo *m)
{
    return !m || !m->nmaps ? 0 : m->ix.table ? 1 : 2;
}

void tlcc_memo_close(tlcc_memo *m)
{
    if (!m)
        return;
    tlcc_stat_cache_drop(m->deps); /* it may point into the mappings */
    free_entries(m);
    if (m->fd >= 0)
        close(m->fd);
    free(m->dir);
    free(m);
}

/* kind:path:dev:ino:size:mtime.ns:ctime.ns, by hand where it surely fits (every warm run makes one) */
static void stat_key(char *out, size_t n, const char *kind, const char *path, const struct stat *st)
{
    size_t kl = strlen(kind), pl = strlen(path);
    if (kl + pl + 128 <= n && st->st_mtim.tv_sec >= 0 && st->st_ctim.tv_sec >= 0) {
        char *o = out;
        memcpy(o, kind, kl);
        o[kl] = ':';
        memcpy(o += kl + 1, path, pl);
        o[pl] = ':';
        o = tlcc_put_hex(o + pl + 1, (unsigned long long)st->st_dev, ':');
        o = tlcc_put_hex(o, (unsigned long long)st->st_ino, ':');
        o = tlcc_put_hex(o, (unsigned long long)st->st_size, ':');
        o = tlcc_put_dec(o, (unsigned long long)st->st_mtim.tv_sec, 1, '.');
        o = tlcc_put_dec(o, (unsigned long long)st->st_mtim.tv_nsec, 9, ':');
        o = tlcc_put_dec(o, (unsigned long long)st->st_ctim.tv_sec, 1, '.');
        tlcc_put_dec(o, (unsigned long long)st->st_ctim.tv_nsec, 9, 0);
        return;
    }
    snprintf(out, n, "%s:%s:%llx:%llx:%llx:%lld.%09ld:%lld.%09ld", kind, path, (unsigned long long)st->st_dev,
             (unsigned long long)st->st_ino, (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec,
             st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

static int same_stat(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int tlcc_memo_file_lookup(tlcc_memo *m, const char *path, struct stat *st, tl_hash128 *out, tl_error *err)
{
    char key[4400];
    if (stat(path, st) != 0)
        return tl_fail(err, "%s: cannot stat: %s", path, strerror(errno));
    stat_key(key, sizeof key, "f", path, st);
    const char *v = m ? lookup(m, key) : NULL;
    return v && tl_hash_from_hex(v, out) == 0 ? 1 : 0;
}

void tlcc_memo_file_store(tlcc_memo *m, const char *path, const struct stat *before, tl_hash128 h)
{
    struct stat after;
    char key[4400], hex[TL_HASH_HEX_LEN + 1];
    /* Memoize only when the file did not change while we read it: otherwise the stat we key by
     * might not describe the bytes we hashed. */
    if (!m || !m->dir || stat(path, &after) != 0 || !same_stat(before, &after))
        return;
    stat_key(key, sizeof key, "f", path, before);
    tl_hash_hex(h, hex);
    add(m, key, hex, 1);
    m->dirty = 1;
}

int tlcc_memo_file_hash(tlcc_memo *m, const char *path, tl_hash128 *out, int *hit, tl_error *err)
{
    struct stat st;
    int r = tlcc_memo_file_lookup(m, path, &st, out, err);
    *hit = r == 1;
    if (r != 0)
        return r < 0 ? -1 : 0;
    if (tl_hash_file(path, out, err) != 0)
        return -1;
    tlcc_memo_file_store(m, path, &st, *out);
    return 0;
}

const char *tlcc_memo_get(tlcc_memo *m, const char *key)
{
    return m ? lookup(m, key) : NULL;
}

/* Read in place (memo.h): the answer points into the mapping, so a warm hit copies none of its values. */
int tlcc_memo_get_held(tlcc_memo *m, const char *key, const char **answer, size_t *len)
{
    const struct entry *e = m && key ? find(m, key, strlen(key)) : NULL;
    const char *sep = e ? memchr(e->val, '\x1d', e->vlen) : NULL;
    if (!sep)
        return 0;
    const char *deps = sep + 1;
    size_t dlen = e->vlen - (size_t)(deps - e->val);
    int held = tlcc_deps_hold(m->deps, deps, dlen, !e->val_owned); /* else it lies in a mapping, kept until close */
    if (!held)
        return 0;
    tlcc_deps_note_serialized(m->deps, deps, dlen);
    *answer = e->val;
    *len = (size_t)(sep - e->val);
    return held;
}

void tlcc_memo_put_held(tlcc_memo *m, const char *key, const char *answer, const tlcc_deps *d)
{
    char *ser = m && key ? tlcc_deps_serialize(d) : NULL;
    char *val = ser ? tlcc_concatn(TLCC_S(answer ? answer : ""), TLCC_S("\x1d"), TLCC_S(ser), NULL) : NULL;
    if (val)
        tlcc_memo_put(m, key, val);
    free(val);
    free(ser);
}

#ifdef TL_FUZZING
void tlcc_memo_fuzz_each(const tlcc_memo *m, void (*fn)(const char *key, size_t klen, const char *val, size_t vlen, void *ctx),
                       void *ctx)
{
    if (m && m->ix.table) { /* read through the index: every record of the file, as a full reading has them */
        tlcc_memo_rec r;
        const char *end = m->map + m->maplen;
        for (const char *p = m->map + sizeof TLCC_MEMO_HEADER - 1; p < end && tlcc_memo_rec_at(p, end, &r) == 0; p = r.next)
            if (!tlcc_memo_rec_is_index(&r))
                fn(r.key, r.klen, r.val, r.vlen, ctx);
        return;
    }
    for (int i = 0; m && i < m->n; i++)
        fn(m->e[i].key, m->e[i].klen, m->e[i].val, m->e[i].vlen, ctx);
}


#endif

void tlcc_memo_put(tlcc_memo *m, const char *key, const char *val)
{
    if (!m || !m->dir || strpbrk(key, "\t\n") || strpbrk(val, "\t\n") || strcmp(key, TLCC_MEMO_INDEX_KEY) == 0)
        return;
    const char *old = lookup(m, key);
    if (old && strcmp(old, val) == 0)
        return;
    add(m, key, val, 1);
    m->dirty = 1;
}

/* Probe outputs are stored on one line: backslash, tab and newline escaped. */
static void escape(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (; *in && o + 3 < n; in++) {
        if (*in == '\\' || *in == '\n' || *in == '\t') {
            out[o++] = '\\';
            out[o++] = *in == '\n' ? 'n' : *in == '\t' ? 't' : '\\';
        } else {
            out[o++] = *in;
        }
    }
    out[o] = 0;
}

static char *unescape(const char *in)
{
    char *out = malloc(strlen(in) + 1), *o = out;
    if (!out)
        return NULL;
    for (; *in; in++) {
        if (*in == '\\' && in[1]) {
            in++;
            *o++ = *in == 'n' ? '\n' : *in == 't' ? '\t' : *in;
        } else {
            *o++ = *in;
        }
    }
    *o = 0;
    return out;
}

static char *run_capture(char *const argv[], int from_stderr)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return NULL;
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return NULL;
    }
    if (pid == 0) {
        /* A probe dies with the wrapper (make's SIGTERM, a timeout killing trueline-cc mid-probe): it is ours
         * alone, and its output has no reader left. The parent may already be gone before the prctl. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0);
        dup2(nul, from_stderr ? 1 : 2);
        dup2(pfd[1], from_stderr ? 2 : 1);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    ssize_t r;
    while (buf && (r = read(pfd[0], buf + len, cap - len - 1)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        len += (size_t)r;
        if (cap - len < 2 && cap < (1 << 20)) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                break;
            buf = nb;
        } else if (cap - len < 2) {
            break; /* a probe answering megabytes is not one we want */
        }
    }
    close(pfd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!buf || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(buf);
        return NULL;
    }
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        len--;
    buf[len] = 0;
    return buf;
}

/* A probe the memo did not answer: run it and record its output (a separate frame: the escape buffer
 * would put a warm run's stack four pages deeper, a fault each). */
static __attribute__((noinline)) const char *probe_miss(tlcc_memo *m, const char *key, char *const argv[], int from_stderr)
{
    char *out = run_capture(argv, from_stderr);
    if (!out)
        return NULL;
    char esc[16384];
    escape(out, esc, sizeof esc);
    if (m->dir) {
        add(m, key, esc, 1);
        m->dirty = 1;
    }
    add(m, "\x1e", out, 0);
    free(out);
    return m->e[m->n - 1].val;
}

static const char *probe(tlcc_memo *m, char *const argv[], int from_stderr)
{
    struct stat st;
    if (!m || tlcc_stat_cached(m->deps, argv[0], &st) != 0)
        return NULL;
    /* sized to fit: a truncated key could answer for other arguments */
    size_t cap = 2 * strlen(argv[0]) + 160;
    for (int i = 1; argv[i]; i++)
        cap += strlen(argv[i]) + 1;
    char *key = malloc(cap);
    if (!key)
        return NULL;
    stat_key(key, cap, from_stderr ? "pe" : "p", argv[0], &st);
    size_t k = strlen(key);
    for (int i = 1; argv[i]; i++) {
        size_t n = strlen(argv[i]);
        key[k++] = '\x1f';
        memcpy(key + k, argv[i], n + 1);
        k += n;
    }
    for (size_t i = 0; i < k; i++)
        if (key[i] == '\t' || key[i] == '\n')
            key[i] = ' ';
    const char *v = lookup(m, key);
    if (!v) {
        v = probe_miss(m, key, argv, from_stderr);
        free(key);
        return v;
    }
    free(key);
    /* values are stored escaped; keep an unescaped copy as a fresh=0 shadow entry */
    char *u = unescape(v);
    if (!u)
        return NULL;
    add(m, "\x1e", u, 0); /* owned by the memo; key never matches a real one */
    free(u);
    return m->e[m->n - 1].val;
}

const char *tlcc_memo_probe(tlcc_memo *m, char *const argv[])
{
    return probe(m, argv, 0);
}

const char *tlcc_memo_probe_stderr(tlcc_memo *m, char *const argv[])
{
    return probe(m, argv, 1);
}
