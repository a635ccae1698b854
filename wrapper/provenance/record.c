#include "provenance/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "understand/compiler.h"
#include "understand/families.h"

/* `-o` names the object of a one-source compile (gcc and nvcc refuse -o with several sources); otherwise
 * each is named after its source, suffix replaced by .o, in the working directory or under nvcc's -odir
 * (measured: gcc 12, clang 14, nvcc 13). */
void tlcc_compile_outputs(const tlcc_invocation *inv, tlcc_strv *outs)
{
    if (inv->output && inv->sources.n == 1) {
        tlcc_strv_push(outs, inv->output);
        return;
    }
    for (int i = 0; i < inv->sources.n; i++) {
        const char *b = tlcc_basename(inv->sources.v[i]);
        const char *dot = strrchr(b, '.');
        int n = dot ? (int)(dot - b) : (int)strlen(b);
        if (inv->odir && *inv->odir)
            tlcc_strv_pushf(outs, "%s/%.*s.o", inv->odir, n, b);
        else
            tlcc_strv_pushf(outs, "%.*s.o", n, b);
    }
}

/* The line-info flags in effect: the forced ones, else those the user gave. */
static void lineinfo_level(const tlcc_invocation *inv, char *buf, size_t len)
{
    buf[0] = 0;
    if (inv->forced.n) {
        char *j = tlcc_strv_join(&inv->forced, 0);
        snprintf(buf, len, "%s", j ? j : "");
        free(j);
        return;
    }
    snprintf(buf, len, "%s%s%s", inv->has_G ? "-G" : inv->has_lineinfo ? "-lineinfo" : "",
             (inv->has_G || inv->has_lineinfo) && inv->host_debug ? " " : "", inv->host_debug ? "-g" : "");
}

tl_note tlcc_record_note(const tlcc_invocation *inv, const tlcc_record_ctx *c, unsigned type, const char *src,
                         char *li, size_t lilen)
{
    tl_note n = { 0 };
    lineinfo_level(inv, li, lilen);
    n.type = type;
    n.wrapper_version = (char *)TRUELINE_VERSION;
    n.family = (char *)tlcc_family_name(inv->family);
    n.driver = (char *)tlcc_basename(inv->compiler_path);
    n.compiler_version = inv->version;
    n.fingerprint = (char *)inv->fp_hex;
    n.argv_hash = (char *)inv->argv_hex;
    /* a cached compile's record is handed to every compile the cache keys the same: what they must share */
    n.key_hash = type == TL_NOTE_COMPILE ? (char *)c->key_hash : NULL;
    n.key_hash_pp = type == TL_NOTE_COMPILE ? (char *)c->key_hash_pp : NULL;
    n.lineinfo_level = li;
    n.lineinfo_forced = inv->forced.n > 0;
    n.device_debug = inv->has_G;
    n.source = (char *)src;
    n.cwd = (char *)c->cwd;
    n.output = type == TL_NOTE_LINK ? inv->output : NULL;
    n.argv = inv->args.v;
    n.argc = inv->args.n;
    /* which flags came from the environment: apart from the argv, which holds them unmarked */
    n.folded_env = inv->folded_env.v;
    n.nfolded_env = inv->folded_env.n;
    /* an object's record binds its bytes (and is MACed with a key); filled in by tlcc_stamp_sealed */
    n.seal_content = type == TL_NOTE_COMPILE && inv->compile_only;
    n.seal_mac = n.seal_content && c->mac;
    return n;
}
