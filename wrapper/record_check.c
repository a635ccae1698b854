/* The decision of a cache-hit verification, from the bytes of an object's `.note.trueline` section(s): one
 * compile record whose fingerprint and effective-argv hash are this invocation's, else exactly what
 * differs. Free of libelf, because two readers feed it: the wrapper's (verify.c, libelf) and the hook
 * preloaded into ccache (wrapper/hook/, which cannot carry libelf: see note_section.c there). */
#include "provenance.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void collect(tl_note *n, void *ctx)
{
    tl_record_check *c = ctx;
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

static void say(tl_verify_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(tl_verify_result *r, const char *fmt, ...)
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

/* Names argv elements present on one side only (the output operand excluded, as in the hash). */
static void argv_diff(tl_verify_result *r, const tl_note *n, char *const *argv, int argc)
{
    if (n->argv_omitted || n->argc == 0) {
        say(r, " (the record carries no argv to compare)");
        return;
    }
    const char *out_here = tl_prov_output(argv, argc), *out_there = tl_prov_output(n->argv, n->argc);
    int shown = 0;
    for (int i = 0; i < n->argc && shown < 8; i++)
        if (!in_argv(n->argv[i], argv, argc) && n->argv[i] != out_there)
            say(r, "%s only in the cached object's argv: %s", shown++ ? ";" : ":", n->argv[i]);
    for (int i = 0; i < argc && shown < 8; i++)
        if (!in_argv(argv[i], n->argv, n->argc) && argv[i] != out_here)
            say(r, "%s only in this invocation: %s", shown++ ? ";" : ":", argv[i]);
    if (!shown)
        say(r, n->argc < n->argc_total ? " (recorded argv was cut; the difference is past the cut)"
                                       : " (same elements in another order)");
}

static void compare(tl_verify_result *r, const tl_note *n, const char *fp, const char *ah, char *const *argv,
                    int argc)
{
    int fp_ok = n->fingerprint && strcmp(n->fingerprint, fp) == 0;
    int ah_ok = n->argv_hash && strcmp(n->argv_hash, ah) == 0;
    if (fp_ok && ah_ok)
        return;
    r->status = TL_VERIFY_MISMATCH;
    if (!fp_ok)
        say(r, "toolchain fingerprint %s (%s %s) in the cached object, this toolchain is %s",
            n->fingerprint ? n->fingerprint : "(none)", n->family ? n->family : "?",
            n->compiler_version ? n->compiler_version : "?", fp);
    if (!ah_ok) {
        say(r, "%seffective-argv hash %s in the cached object, this invocation has %s", fp_ok ? "" : "; ",
            n->argv_hash ? n->argv_hash : "(none)", ah);
        argv_diff(r, n, argv, argc);
    }
}

int tl_record_check_add(tl_record_check *c, const void *sec, size_t len, int big_endian, tl_verify_result *r)
{
    tl_error err;
    if (len && tl_note_decode_all(sec, len, big_endian, collect, c, &err) < 0) {
        r->status = TL_VERIFY_MISMATCH;
        say(r, "damaged %s: %s", TL_NOTE_SECTION, err.msg);
        return -1;
    }
    return 0;
}

void tl_record_check_end(tl_record_check *c, int decided, const char *fingerprint, const char *argv_hash,
                         char *const *argv, int argc, tl_verify_result *r)
{
    if (!decided) {
        if (!c->compile) {
            r->status = TL_VERIFY_NO_NOTE;
            say(r, "no %s record: the object was not built through trueline-cc's stamping stage",
                TL_NOTE_SECTION);
        } else if (c->ncompile > 1) {
            r->status = TL_VERIFY_MISMATCH;
            say(r, "%d compile records in one object (expected one)", c->ncompile);
        } else {
            compare(r, c->compile, fingerprint, argv_hash, argv, argc);
        }
    }
    if (c->compile) {
        tl_note_free(c->compile);
        free(c->compile);
    }
    c->compile = NULL;
    c->ncompile = 0;
}

const char *tl_prov_output(char *const *argv, int argc)
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

