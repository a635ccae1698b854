/* wrapper/fingerprint/memo.c and memo_file.c: the memo file's records (KLEN:VLEN:key<TAB>value) and its index, lookups,
 * the dependency lists stored in values (wrapper/fingerprint/deps.c), and a save and reload. Properties beyond "no crash":
 * - every loaded key (one a C string can name) is found, with the value of its last record; read through an
 *   index (a fuzzed one may be wrong) a lookup finds the value of one of the key's records, or nothing;
 * - after a put and a save (the writer's index), a fresh load finds the new entry and every earlier one with
 *   the value of its last record. */
#include "fuzz_util.h"
#include "fingerprint/deps.h"
#include "fingerprint/memo.h"

#include <stdbool.h>
#include <sys/stat.h>

static char g_dir[64];

static void cleanup(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/memo-v2", g_dir);
    unlink(path);
    rmdir(g_dir);
}

struct seen {
    char **key, **val;
    int n, cap;
    int records; /* all of them, plain or not */
};

/* Keys a C string can carry whole (no NUL, tab or newline): the others cannot be asked for. */
static bool plain(const char *p, size_t n)
{
    return !memchr(p, 0, n) && !memchr(p, '\t', n) && !memchr(p, '\n', n);
}

/* Every record whose key a C string can name, with its value. A record holding a NUL byte is damage, never
 * handed out (wrapper/fingerprint/memo_file.c). */
static void collect(const char *key, size_t klen, const char *val, size_t vlen, void *ctx)
{
    struct seen *s = ctx;
    s->records++;
    if (memchr(key, 0, klen) || memchr(val, 0, vlen))
        abort();
    fuzz_touch((const unsigned char *)key, klen);
    fuzz_touch((const unsigned char *)val, vlen);
    if (!plain(key, klen))
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->key = realloc(s->key, (size_t)s->cap * sizeof *s->key);
        s->val = realloc(s->val, (size_t)s->cap * sizeof *s->val);
        if (!s->key || !s->val)
            abort();
    }
    s->key[s->n] = fuzz_strndup((const uint8_t *)key, klen);
    s->val[s->n++] = fuzz_strndup((const uint8_t *)val, vlen);
}

/* The value of key's last record among those seen (the one a lookup must return). */
static const char *last_value(const struct seen *s, const char *key)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (strcmp(s->key[i], key) == 0)
            return s->val[i];
    return NULL;
}

/* Whether v is the value of one of key's records. */
static bool some_value(const struct seen *s, const char *key, const char *v)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->key[i], key) == 0 && strcmp(s->val[i], v) == 0)
            return true;
    return false;
}

/* Whether the file holds a whole record key -> v at a line start. Through the index a lookup may reach a
 * well-formed record that the record-by-record reading never got to (it stops at the first damaged one). */
static bool whole_record(const uint8_t *data, size_t size, const char *key, const char *v)
{
    size_t n = strlen(key) + strlen(v) + 40;
    char *rec = malloc(n);
    if (!rec)
        abort();
    int len = snprintf(rec, n, "\n%zx:%zx:%s\t%s\n", strlen(key), strlen(v), key, v);
    bool found = memmem(data, size, rec, (size_t)len) != NULL;
    free(rec);
    return found;
}

static void check_lookups(tlcc_memo *m, const struct seen *s, bool exact, const uint8_t *data, size_t size)
{
    for (int i = 0; i < s->n && i < 512; i++) {
        const char *v = tlcc_memo_get(m, s->key[i]);
        if (exact ? !v || strcmp(v, last_value(s, s->key[i])) != 0
                  : v && !some_value(s, s->key[i], v) && !whole_record(data, size, s->key[i], v))
            abort();
        if (!v)
            continue;
        const char *deps = strchr(v, '\x1d'), *a;
        size_t alen;
        if (!deps)
            continue;
        tlcc_deps_ctx dc = { 0 };
        (void)tlcc_deps_hold(&dc, deps + 1, strlen(deps + 1), 0);
        tlcc_stat_cache_drop(&dc);
        /* read in place: when held, the answer is the value up to the first separator, never past the record */
        if (tlcc_memo_get_held(m, s->key[i], &a, &alen) && (alen != (size_t)(deps - v) || memcmp(a, v, alen) != 0))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/tl-fuzz-memo.%d", (int)getpid());
        if (mkdir(g_dir, 0700) != 0)
            abort();
        atexit(cleanup);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/memo-v2", g_dir);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    struct seen s = { 0 };
    tlcc_memo *m = tlcc_memo_open(g_dir, NULL);
    tlcc_memo_fuzz_each(m, collect, &s);
    check_lookups(m, &s, tlcc_memo_read_mode(m) != 1, data, size);
    tlcc_memo_put(m, "fuzz\x1fnew", "value");
    tl_error err;
    int saved = tlcc_memo_save(m, &err) == 0;
    tlcc_memo_close(m);
    if (saved) {
        m = tlcc_memo_open(g_dir, NULL);
        const char *v = tlcc_memo_get(m, "fuzz\x1fnew");
        if (!v || strcmp(v, "value") != 0)
            abort();
        /* a save keeps every record unless the file is over its bound (memo.c drops the oldest half) */
        if (tlcc_memo_read_mode(m) != 1) /* the writer always writes its index */
            abort();
        if (!last_value(&s, "fuzz\x1fnew") && s.records < 2048)
            check_lookups(m, &s, true, NULL, 0);
        tlcc_memo_close(m);
    }
    for (int i = 0; i < s.n; i++)
        free(s.key[i]), free(s.val[i]);
    free(s.key);
    free(s.val);
    unlink(path);
    return 0;
}
