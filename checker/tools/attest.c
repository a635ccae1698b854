/* --keygen NAME and --attest: a signed in-toto statement of how each artifact's objects were built, from
 * their `.note.trueline` records (docs/attest.md). The artifacts are read by the audit's own readers (wheels
 * and conda packages member by member, static-library members, shared objects, executables); a file that
 * cannot be read completely stops the attestation (exit 2): nothing is ever signed over bytes not read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tools.h"

#ifndef TL_HAVE_ATTEST
static int not_built(void)
{
    fprintf(stderr, "trueline-check: attestations are not built in (build with libsodium and jansson: "
                    "pkg-config libsodium jansson)\n");
    return 2;
}
int tlck_tool_keygen(const struct tlck_options *o) { (void)o; return not_built(); }
int tlck_tool_attest(const struct tlck_options *o) { (void)o; return not_built(); }
#else
#include <gelf.h>
#include <sys/stat.h>

#include "attest/dsse.h"
#include "attest/policy.h"
#include "attest/record_key.h"
#include "attest/statement.h"
#include "attest/toolchain.h"
#include "checks/provenance.h"
#include "inputs.h"
#include "load.h"
#include "read/read_ctx.h"
#include "trueline/content_digest.h"
#include "trueline/note_mac.h"

int tlck_tool_keygen(const struct tlck_options *o)
{
    tl_error err;
    if (tlck_key_generate(o->keygen, &err) != 0) {
        fprintf(stderr, "trueline-check: --keygen: %s\n", err.msg);
        return 2;
    }
    printf("%s: secret key (keep it private; mode 0600)\n%s.pub: public key (publish it)\n", o->keygen, o->keygen);
    return 0;
}

static char *dup0(const char *s)
{
    return s ? strdup(s) : NULL;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static const char *mac_state(const struct tlck_provenance *n, const struct tlck_record_key *rk)
{
    if (!n->mac)
        return TLCK_MAC_ABSENT;
    if (!rk->bytes)
        return TLCK_MAC_UNCHECKED;
    return tl_note_mac_matches(rk->bytes, rk->len, n->mac_input, n->mac_input_len, n->mac) ? TLCK_MAC_VERIFIED
                                                                                           : TLCK_MAC_WRONG;
}

/* How many elements at the end of the recorded argv the forced flags are: force.c appends them last, and the
 * record's "li" is them joined with spaces (cut at 255 bytes: a long -fdebug-prefix-map=CWD=.), so the
 * fewest last elements whose join is li, or starts with a cut li. 0 when the argv is cut or left out. */
static int forced_tail(const struct tlck_provenance *n, const char *li)
{
    size_t want = strlen(li), len = 0;
    if (!n->args || n->nargs != n->argc_total)
        return 0;
    for (int k = 1; k <= n->nargs && len <= want; k++) {
        len += strlen(n->args[n->nargs - k]) + (k > 1);
        if (len < want)
            continue;
        char *joined = malloc(len + 1), *p = joined;
        if (!joined)
            return 0;
        for (int i = n->nargs - k; i < n->nargs; i++)
            p += sprintf(p, "%s%s", i > n->nargs - k ? " " : "", n->args[i]);
        int same = len == want ? strcmp(joined, li) == 0 : want >= 255 && strncmp(joined, li, want) == 0;
        free(joined);
        if (same)
            return k;
    }
    return 0;
}

/* The forced flags, one per element: the argv's own elements where the record has it whole, else li cut at
 * its spaces. The variables folded into the argv are known where the record carries its argv (they are
 * written with it). */
static int record_flags(struct tlck_att_record *r, const struct tlck_provenance *n)
{
    const char *li = n->lineinfo_forced && n->lineinfo_level ? n->lineinfo_level : "";
    int tail = *li ? forced_tail(n, li) : 0;
    for (int i = n->nargs - tail; tail && i < n->nargs; i++)
        if (tlck_att_add_forced(r, n->args[i]) != 0)
            return -1;
    while (!tail && *li) {
        size_t len = strcspn(li, " ");
        char flag[256];
        if (len && len < sizeof flag) {
            memcpy(flag, li, len);
            flag[len] = 0;
            if (tlck_att_add_forced(r, flag) != 0)
                return -1;
        }
        li += len + (li[len] == ' ');
    }
    r->folded_known = n->argv != NULL;
    for (int k = 0; k < n->nfolded_env; k++) {
        const char *v = n->folded_env[k], *eq = strchr(v, '='); /* the decoder kept only NAME=VALUE */
        if (tlck_att_add_folded(r, v, (size_t)(eq - v), eq + 1) != 0)
            return -1;
    }
    return 0;
}

static int add_object(struct tlck_attestation *a, const struct tlck_file *f, const struct tlck_input_bytes *b,
                      const struct tlck_record_key *rk)
{
    struct tlck_att_object *o = tlck_att_push(&a->obj, &a->nobj, sizeof *a->obj);
    if (!o || !(o->file = strdup(f->display)))
        return -1;
    tlck_sha256_hex(b->data, b->size, o->sha256);
    size_t ncompile = 0;
    for (size_t i = 0; i < f->nnotes; i++)
        ncompile += !f->notes[i].is_link;
    for (size_t i = 0; i < f->nnotes; i++) {
        const struct tlck_provenance *n = &f->notes[i];
        struct tlck_att_record *r = tlck_att_push(&o->rec, &o->nrec, sizeof *o->rec);
        if (!r)
            return -1;
        r->kind = strdup(n->is_link ? "link" : "compile");
        r->source = dup0(n->is_link ? n->output : n->source);
        r->driver = dup0(n->driver ? n->driver : n->compiler);
        r->compiler_version = dup0(n->compiler_version);
        r->fingerprint = dup0(n->fingerprint);
        r->lineinfo_level = dup0(n->lineinfo_level);
        r->argv = dup0(n->argv);
        r->cwd = dup0(n->cwd);
        for (int k = 0; k < n->nargs; k++) {
            char **slot = tlck_att_push(&r->args, &r->nargs, sizeof *r->args);
            if (!slot || !(*slot = strdup(n->args[k])))
                return -1;
        }
        r->lineinfo_forced = n->lineinfo_forced;
        if (record_flags(r, n) != 0)
            return -1;
        r->device_debug = n->device_debug;
        r->keyed = n->mac != NULL;
        r->binding = strdup(tlck_record_binding(f, n, ncompile, b));
        r->mac = strdup(mac_state(n, rk));
        if (!r->kind || !r->binding || !r->mac)
            return -1;
    }
    for (size_t c = 0; c < f->host.ncus; c++) {
        const struct tlck_cu *cu = &f->host.cus[c];
        if (!tlck_provenance_cu_expected(cu) || tlck_provenance_cu_recorded(f, cu))
            continue;
        char **slot = tlck_att_push(&o->unrecorded, &o->nunrecorded, sizeof *o->unrecorded);
        if (!slot || !(*slot = strdup(cu->name)))
            return -1;
    }
    return 0;
}

/* The subjects: each artifact named, whole, by its sha256. Only regular files: a directory has no digest. */
static int add_subjects(struct tlck_attestation *a, const struct tlck_options *o)
{
    int rc = 0;
    for (size_t i = 0; i < o->ninputs; i++) {
        struct stat st;
        tl_error err;
        struct tlck_att_subject *s;
        if (stat(o->inputs[i], &st) != 0 || !S_ISREG(st.st_mode)) {
            fprintf(stderr, "trueline-check: %s: not a regular file: --attest names the shipped files themselves\n",
                    o->inputs[i]);
            rc = 2;
            continue;
        }
        for (size_t k = 0; k < a->nsubj; k++)
            if (strcmp(a->subj[k].name, base(o->inputs[i])) == 0) {
                fprintf(stderr, "trueline-check: %s: a second artifact named %s: subjects are named by file name\n",
                        o->inputs[i], a->subj[k].name);
                rc = 2;
            }
        if (!(s = tlck_att_push(&a->subj, &a->nsubj, sizeof *a->subj)) || !(s->name = strdup(base(o->inputs[i]))))
            return 2;
        if (tlck_sha256_file(o->inputs[i], s->sha256, &err) != 0) {
            fprintf(stderr, "trueline-check: %s\n", err.msg);
            rc = 2;
        }
    }
    return rc;
}

/* Every object of every artifact, read as the audit reads it (host side: the records are host notes). */
static int add_objects(struct tlck_attestation *a, const struct tlck_options *o, const struct tlck_record_key *rk)
{
    struct tlck_options lo = *o;
    lo.host_only = 1;
    struct tlck_inputs in = { .o = &lo };
    tlck_inputs_expand(&in, o->inputs, o->ninputs);
    int rc = 0;
    for (size_t i = 0; i < in.n; i++) {
        struct tlck_file f;
        struct tlck_input_bytes b = { 0 };
        struct tlck_read_ctx ctx;
        tl_error err;
        tlck_read_ctx_init(&ctx, &lo);
        tlck_load_file(&in.v[i], &lo, &f);
        if (f.error) {
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, f.error);
            rc = 2;
        } else if (tlck_input_map(&in.v[i], &b, &ctx.budget, &err) != 0) {
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, err.msg);
            rc = 2;
        } else if (add_object(a, &f, &b, rk) != 0) {
            fprintf(stderr, "trueline-check: out of memory\n");
            rc = 2;
        }
        tlck_input_unmap(&b);
        tlck_file_free(&f);
    }
    tlck_inputs_free(&in);
    return rc;
}

static int sign_to(const char *path, const struct tlck_attestation *a, const struct tlck_sign_key *k)
{
    char *payload = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&payload, &n);
    if (!m)
        return -1;
    tlck_statement_write(m, a);
    if (fclose(m) != 0) {
        free(payload);
        return -1;
    }
    FILE *out = fopen(path, "w");
    int rc = out && tlck_dsse_write(out, payload, n, k) == 0 ? 0 : -1;
    if (out && fclose(out) != 0)
        rc = -1;
    if (rc != 0)
        remove(path);
    free(payload);
    return rc;
}

static void summary(const struct tlck_attestation *a, const char *path)
{
    size_t none = 0, partly = 0, differs = 0, resolved = 0;
    for (size_t i = 0; i < a->nobj; i++) {
        none += a->obj[i].nrec == 0;
        partly += a->obj[i].nrec && a->obj[i].nunrecorded;
        for (size_t r = 0; r < a->obj[i].nrec; r++)
            differs += strcmp(a->obj[i].rec[r].binding, TLCK_BIND_DIFFERS) == 0;
        if (a->obj[i].nrec == 0)
            printf("  %s: no provenance record (not built through trueline-cc)\n", a->obj[i].file);
        else if (a->obj[i].nunrecorded)
            printf("  %s: %zu compile unit(s) without a record, e.g. %s\n", a->obj[i].file, a->obj[i].nunrecorded,
                   a->obj[i].unrecorded[0]);
    }
    for (size_t i = 0; i < a->ntc; i++)
        resolved += a->tc[i].resolved;
    printf("%s: %zu artifact(s), %zu object(s): %zu without a record, %zu partly recorded, %zu record(s) whose "
           "object changed; %zu toolchain(s), %zu resolved here; policy: %s\n", path, a->nsubj, a->nobj, none, partly,
           differs, a->ntc, resolved, !a->policy ? "none asked" : a->nviolations ? "fail" : "pass");
}

int tlck_tool_attest(const struct tlck_options *o)
{
    tl_error err;
    unsigned mask = 0;
    struct tlck_sign_key key;
    if (!o->signing_key || !o->output) {
        fprintf(stderr, "trueline-check: --attest needs --signing-key FILE and --output FILE.intoto.jsonl\n");
        return 2;
    }
    if (o->require && tlck_att_policy_parse(o->require, &mask, &err) != 0) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        return 2;
    }
    struct tlck_record_key rk = { 0 };
    if (o->record_key && tlck_record_key_load(o->record_key, &rk, &err) != 0) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        return 2;
    }
    if (tlck_key_load(o->signing_key, 1, &key, &err) != 0) {
        fprintf(stderr, "trueline-check: --signing-key: %s\n", err.msg);
        tlck_record_key_free(&rk);
        return 2;
    }
    struct tlck_attestation a = { 0 };
    int rc = add_subjects(&a, o);
    if (rc == 0)
        rc = add_objects(&a, o, &rk);
    /* the subjects were read before the objects: a file replaced meanwhile must not be signed for */
    for (size_t i = 0; rc == 0 && i < a.nsubj; i++) {
        char again[TLCK_SHA256_HEX];
        if (tlck_sha256_file(o->inputs[i], again, &err) != 0 || strcmp(again, a.subj[i].sha256) != 0) {
            fprintf(stderr, "trueline-check: %s: changed while it was read; nothing signed\n", o->inputs[i]);
            rc = 2;
        }
    }
    if (rc == 0 && tlck_att_resolve_toolchains(&a, o->toolchains, o->ntoolchains, o->self_exe) != 0)
        rc = 2;
    long bad = 0;
    if (rc == 0 && o->require) {
        a.policy = strdup(o->require);
        bad = tlck_att_policy_judge(&a, mask);
    }
    if (rc == 0 && (bad < 0 || sign_to(o->output, &a, &key) != 0)) {
        fprintf(stderr, "trueline-check: %s: cannot write the attestation\n", o->output);
        rc = 2;
    }
    if (rc != 0) {
        fprintf(stderr, "trueline-check: --attest: nothing signed\n");
    } else {
        summary(&a, o->output);
        for (size_t i = 0; i < a.nviolations; i++)
            fprintf(stderr, "trueline-check: policy: %s\n", a.violations[i]);
        rc = a.nviolations ? 1 : 0;
    }
    tlck_key_wipe(&key);
    tlck_record_key_free(&rk);
    tlck_att_free(&a);
    return rc;
}
#endif
