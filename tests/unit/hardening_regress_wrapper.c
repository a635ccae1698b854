/* hardening_regress.c's counterpart for the wrapper's fuzz targets (wrapper/understand/argv.c folding) and the memo
 * file (wrapper/fingerprint/memo.c). */
#include "regress_replay.h"

#define LLVMFuzzerTestOneInput fuzz_argv
#include "../../fuzz/targets/argv.c"
#undef LLVMFuzzerTestOneInput
#include "../../wrapper/fingerprint/memo.h"

/* argv's inputs broke the process itself (libiberty's expandargv exit()ed on a directory named by "@F"; stacked
 * regex quantifiers exhausted memory): that the replay returned to here is their invariant. */
static void describe_returned(const uint8_t *data, size_t size, char *out, size_t outn)
{
    (void)data;
    appendf(out, outn, "returned after %zu bytes", size);
}

/* The file's records as the format describes them ("KLEN:VLEN:key<TAB>value<LF>", lengths in hex), parsed here
 * independently of wrapper/fingerprint/memo_file.c, up to the first that does not fit. */
struct memo_truth {
    const char *key[512], *val[512];
    size_t klen[512], vlen[512], n;
};

static void memo_parse(const char *p, const char *end, struct memo_truth *t)
{
    size_t hl = strlen("trueline-memo 2\n");
    if ((size_t)(end - p) < hl || memcmp(p, "trueline-memo 2\n", hl) != 0)
        return;
    for (p += hl; p < end && t->n < 512;) {
        char *e;
        unsigned long kl = strtoul(p, &e, 16), vl;
        if (e == p || *e != ':')
            return;
        const char *q = e + 1;
        vl = strtoul(q, &e, 16);
        if (e == q || *e != ':' || (size_t)(end - e) < kl + vl + 3 || e[1 + kl] != '\t' || e[2 + kl + vl] != '\n')
            return;
        t->key[t->n] = e + 1, t->klen[t->n] = kl, t->val[t->n] = e + 2 + kl, t->vlen[t->n] = vl, t->n++;
        p = e + 3 + kl + vl;
    }
}

/* wrapper/fingerprint/memo.c on the file: how it was read (1 through its index, 2 record by record) and, for every key a
 * C string can name, whether the answer is one of that key's whole records (never a piece of a record, never a
 * value cut at a NUL byte), as fuzz/targets/memo.c requires. */
static void describe_memo(const uint8_t *data, size_t size, char *out, size_t outn)
{
    char dir[] = "/tmp/tl-regress-memo.XXXXXX", path[64];
    if (!mkdtemp(dir))
        return;
    snprintf(path, sizeof path, "%s/memo-v2", dir);
    FILE *f = fopen(path, "wb");
    int written = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        written = 0;
    if (written) {
        struct memo_truth t = { .n = 0 };
        memo_parse((const char *)data, (const char *)data + size, &t);
        tlcc_memo *m = tlcc_memo_open(dir, NULL);
        size_t answered = 0, wrong = 0;
        char key[4096];
        for (size_t i = 0; i < t.n; i++) {
            if (t.klen[i] >= sizeof key || memchr(t.key[i], 0, t.klen[i]) || strncmp(t.key[i], "#index", t.klen[i]) == 0)
                continue;
            memcpy(key, t.key[i], t.klen[i]);
            key[t.klen[i]] = 0;
            const char *v = tlcc_memo_get(m, key);
            if (!v)
                continue;
            answered++;
            int whole = 0;
            for (size_t j = 0; j < t.n; j++)
                whole |= t.klen[j] == t.klen[i] && memcmp(t.key[j], key, t.klen[i]) == 0 && t.vlen[j] == strlen(v) &&
                         memcmp(t.val[j], v, t.vlen[j]) == 0;
            if (!whole) { /* through the index: a well-formed record past one the sequential reading stops at */
                char rec[4200];
                int rl = snprintf(rec, sizeof rec, "\n%zx:%zx:%s\t%s\n", strlen(key), strlen(v), key, v);
                whole = rl > 0 && (size_t)rl < sizeof rec && memmem(data, size, rec, (size_t)rl) != NULL;
            }
            wrong += !whole;
        }
        appendf(out, outn, "read mode %d, %zu records, %zu lookups answered, %zu answers not a whole record of their key",
                tlcc_memo_read_mode(m), t.n, answered, wrong);
        tlcc_memo_close(m);
    }
    unlink(path);
    rmdir(dir);
}

static const struct regress_target targets[] = {
    { "argv", fuzz_argv, describe_returned },
    { "memo", NULL, describe_memo }, /* its fuzz target needs the TL_FUZZING build: the property is checked here */
};

/* Every input under tests/data/regress/<target>/ of the table above, each through its entry point. */
static void replay(void)
{
    UNIT_CHECK("regression inputs found", regress_replay(targets, sizeof targets / sizeof *targets) > 0);
}

UNIT_MAIN(UNIT_CASE(replay))
