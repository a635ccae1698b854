/* The decision of a cache-hit verification, from the bytes of an object's `.note.trueline` section(s): one
 * compile record whose fingerprint and argv hash as the cache keys it (verify_key.c) are this invocation's,
 * else exactly what differs. Free of libelf, because two readers feed it: the wrapper's (verify.c, libelf) and the hook
 * preloaded into ccache (wrapper/hook/, which cannot carry libelf: see note_section.c there). */
#include "provenance/record_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void collect(tl_note *n, void *ctx)
{
    tlcc_record_check *c = ctx;
    if (n->type == TL_NOTE_COMPILE) {
        c->ncompile++;
        if (!c->compile) {
            c->compile = n;
            return;
        }
    }
    tl_note_free(n);
    free(n);
}

static void say(tlcc_verify_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(tlcc_verify_result *r, const char *fmt, ...)
{
    size_t used = strlen(r->what);
    if (used + 1 >= sizeof r->what)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what + used, sizeof r->what - used, fmt, ap);
    va_end(ap);
}

static int in_argv(const char *s, char *const *v, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, v[i]) == 0)
            return 1;
    return 0;
}

/* Names argv elements present on one side only, both sides as the cache keys them when the expectation
 * says how (the recorded argv from the record's working directory): what the cache ignores or rewrites is
 * never named, and the element that differs is. */
static void argv_diff(tlcc_verify_result *r, const tl_note *n, const tlcc_verify_expect *e, int keyed, int pp)
{
    if (n->argv_omitted || n->argc == 0) {
        say(r, " (the record carries no argv to compare)");
        return;
    }
    char *const *here = e->argv, *const *there = n->argv;
    int nhere = e->argc, nthere = n->argc;
    char **kh = NULL, **kt = NULL;
    if (keyed && e->key && e->key_vector && (kh = e->key_vector(e->key, e->argv, e->argc, NULL, pp, &nhere)) &&
        (kt = e->key_vector(e->key, n->argv, n->argc, n->cwd, pp, &nthere)))
        here = kh, there = kt;
    else
        nhere = e->argc, nthere = n->argc;
    const char *out_here = keyed ? NULL : tlcc_prov_output(here, nhere);
    const char *out_there = keyed ? NULL : tlcc_prov_output(there, nthere);
    int shown = 0;
    for (int i = 0; i < nthere && shown < 8; i++)
        if (!in_argv(there[i], here, nhere) && there[i] != out_there)
            say(r, "%s only in the cached object's argv: %s", shown++ ? ";" : ":", there[i]);
    for (int i = 0; i < nhere && shown < 8; i++)
        if (!in_argv(here[i], there, nthere) && here[i] != out_here)
            say(r, "%s only in this invocation: %s", shown++ ? ";" : ":", here[i]);
    if (!shown)
        say(r, n->argc < n->argc_total ? " (recorded argv was cut; the difference is past the cut)"
                                       : " (same elements in another order)");
    free(kh);
    free(kt);
}

/* A record with `kp` is compared by it when this compile has one too (the argv as the cache keys the object
 * of a compile it keys by the preprocessed text), else one with `kh` by that (the argv as the cache keys it);
 * one written before records had either, by the effective-argv hash. */
static void compare(tlcc_verify_result *r, const tl_note *n, const tlcc_verify_expect *e, const char *content)
{
    int pp = n->key_hash_pp && e->key_hash_pp, keyed = pp || (n->key_hash && e->key_hash);
    const char *theirs = pp ? n->key_hash_pp : keyed ? n->key_hash : n->argv_hash;
    const char *ours = pp ? e->key_hash_pp : keyed ? e->key_hash : e->argv_hash;
    int fp_ok = n->fingerprint && strcmp(n->fingerprint, e->fingerprint) == 0;
    int ah_ok = theirs && ours && strcmp(theirs, ours) == 0;
    /* The record must be this object's (content digest) and, with a key, made by a holder of the key. */
    int ch_ok = !n->content_hash || (*content && strcmp(n->content_hash, content) == 0);
    int mac_ok = !e->mac_ok || e->mac_ok(e->mac_key, n);
    if (fp_ok && ah_ok && ch_ok && mac_ok) {
        r->unbound = !n->content_hash;
        return;
    }
    r->status = TLCC_VERIFY_MISMATCH;
    if (!ch_ok)
        say(r, "%s; ", *content ? "the object's bytes are not the ones its record was written for (content digest "
                                  "differs: the code was replaced, the record copied from another object)"
                                : "the object's content digest cannot be computed (not exactly one record section)");
    if (!mac_ok)
        say(r, "%s; ", n->mac ? "the record's MAC does not verify with the configured key ([provenance] key_file)"
                              : "the record carries no MAC and a key is configured ([provenance] key_file)");
    if (fp_ok && ah_ok) {
        r->what[strlen(r->what) - 2] = 0; /* the "; " */
        return;
    }
    if (!fp_ok)
        say(r, "toolchain fingerprint %s (%s %s) in the cached object, this toolchain is %s",
            n->fingerprint ? n->fingerprint : "(none)", n->family ? n->family : "?",
            n->compiler_version ? n->compiler_version : "?", e->fingerprint);
    if (!ah_ok) {
        say(r, "%seffective-argv hash%s %s in the cached object, this invocation has %s", fp_ok ? "" : "; ",
            pp ? " (as the cache keys it, what the preprocessor reads left out)" : keyed ? " (as the cache keys it)" : "",
            theirs ? theirs : "(none)", ours ? ours : "(none)");
        if (e->argv)
            argv_diff(r, n, e, keyed, pp);
    }
}

int tlcc_record_check_add(tlcc_record_check *c, const void *sec, size_t len, int big_endian, tlcc_verify_result *r)
{
    tl_error err;
    if (len && tl_note_decode_all(sec, len, big_endian, collect, c, &err) < 0) {
        r->status = TLCC_VERIFY_MISMATCH;
        say(r, "damaged %s: %s", TL_NOTE_SECTION, err.msg);
        return -1;
    }
    return 0;
}

void tlcc_record_check_end(tlcc_record_check *c, int decided, const tlcc_verify_expect *e, tlcc_verify_result *r)
{
    if (!decided) {
        if (!c->compile) {
            r->status = TLCC_VERIFY_NO_NOTE;
            say(r, "no %s record: the object was not built through trueline-cc's stamping stage",
                TL_NOTE_SECTION);
        } else if (c->ncompile > 1) {
            r->status = TLCC_VERIFY_MISMATCH;
            say(r, "%d compile records in one object (expected one)", c->ncompile);
        } else {
            compare(r, c->compile, e, c->content);
        }
    }
    if (c->compile) {
        tl_note_free(c->compile);
        free(c->compile);
    }
    c->compile = NULL;
    c->ncompile = 0;
}

const char *tlcc_prov_output(char *const *argv, int argc)
{
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *joined;
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--output-file") == 0) && i + 1 < argc)
            out = argv[++i];
        else if ((joined = tl_note_joined_output(a)))
            out = joined;
    }
    return out;
}

