#include "provenance/prov_config.h"

#include "provenance/line_split.h"

#include <stdlib.h>
#include <string.h>

/* A yes/no key; a bad value takes the default, and the first bad value of the section is the error. */
static int prov_bool(const tl_config *cfg, const char *key, int *bad, tl_error *e)
{
    int b = tl_config_bool_checked(cfg, "provenance", key, 1, *bad ? NULL : e);
    *bad |= b < 0;
    return b != 0;
}

/* Bytes of argv recorded: digits only (strtoull alone would take "-1" as ULLONG_MAX, and "abc" as 0). */
static size_t prov_argv_max(const tl_config *cfg, int *bad, tl_error *e)
{
    const char *v = tl_config_get(cfg, "provenance", "argv_max");
    if (!v)
        return TL_NOTE_ARGV_MAX_DEFAULT;
    unsigned long long n = strtoull(v, NULL, 10);
    if (*v && !v[strspn(v, "0123456789")] && strlen(v) <= 18)
        return (size_t)n;
    char where[300];
    tl_config_origin(cfg, "provenance", "argv_max", where, sizeof where);
    if (!*bad)
        tl_fail(e, "%s: [provenance] argv_max = %s: expected a number of bytes (0 or more)", where, v);
    *bad = 1;
    return TL_NOTE_ARGV_MAX_DEFAULT;
}

/* The key named by key_file, loaded now: a key that cannot be read fails the compile (or passes it
 * through, by [wrapper] on_error) instead of leaving records unauthenticated. */
static void prov_key(const tl_config *cfg, tlcc_prov_config *p, int *bad, tl_error *e)
{
    const char *v = tl_config_get(cfg, "provenance", "key_file");
    if (!v || !*v)
        return;
    tl_error ke;
    /* the stage may run elsewhere than here: it gets an absolute path (realpath's lstat per component only
     * when the configured one is relative) */
    p->key_path = v[0] == '/' ? strdup(v) : realpath(v, NULL);
    if (tlcc_mac_key_load(v, &p->mac, &ke) != 0 || !p->key_path) {
        char where[300];
        tl_config_origin(cfg, "provenance", "key_file", where, sizeof where);
        if (!*bad)
            tl_fail(e, "%s: %s", where, p->mac.bytes ? "[provenance] key_file: cannot resolve its path" : ke.msg);
        tlcc_mac_key_free(&p->mac);
        free(p->key_path);
        p->key_path = NULL;
        *bad = 1;
    }
}

/* A bad value used to mean "on" (tl_config_bool's -1 is not 0), and on_mismatch = FAIL meant recompile. */
int tlcc_prov_config_read(const tl_config *cfg, tlcc_prov_config *p, tl_error *err)
{
    static const char *const mismatch[] = { "recompile", "fail", NULL };
    tl_error e = { { 0 } };
    int bad = 0;
    *p = (tlcc_prov_config){ 0 };
    p->stamp = prov_bool(cfg, "stamp", &bad, &e);
    p->links = prov_bool(cfg, "links", &bad, &e);
    p->verify = prov_bool(cfg, "verify", &bad, &e);
    p->in_cache = prov_bool(cfg, "verify_in_cache", &bad, &e);
    int record_argv = prov_bool(cfg, "record_argv", &bad, &e);
    const char *m = tl_config_enum(cfg, "provenance", "on_mismatch", "recompile", mismatch, bad ? NULL : &e);
    bad |= !m;
    p->fail = m && strcmp(m, "fail") == 0;
    size_t max = prov_argv_max(cfg, &bad, &e);
    p->argv_max = record_argv ? max : 0;
    prov_key(cfg, p, &bad, &e);
    if (tlcc_line_store_read(cfg, &p->line_store, bad ? &(tl_error){ { 0 } } : &e) != 0)
        bad = 1;
    if (bad && err)
        *err = e;
    return bad ? -1 : 0;
}

void tlcc_prov_config_free(tlcc_prov_config *p)
{
    tlcc_mac_key_free(&p->mac);
    free(p->key_path);
    free(p->line_store);
}
