#include "run/explain.h"

#include <string.h>

#include "understand/argv.h"
#include "understand/families.h"

static const char *mode_name(enum tlcc_mode m)
{
    return m == TLCC_MODE_CHAINED ? "chained" : m == TLCC_MODE_MASQUERADE ? "masquerade" : "launcher";
}

/* Shell-style quoting for display, so a user can copy the effective command. */
static void put_arg(FILE *out, const char *a)
{
    if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+./,:@%^") == strlen(a)) {
        fprintf(out, " %s", a);
        return;
    }
    fputs(" '", out);
    for (; *a; a++) {
        if (*a == '\'')
            fputs("'\\''", out);
        else
            fputc(*a, out);
    }
    fputc('\'', out);
}

static void put_argv(FILE *out, const char *label, const char *first, const tlcc_strv *v)
{
    fprintf(out, "trueline-cc: %s:", label);
    if (first)
        put_arg(out, first);
    for (int i = 0; i < v->n; i++)
        put_arg(out, v->v[i]);
    fputc('\n', out);
}

void tlcc_explain(const tlcc_invocation *inv, double fingerprint_ms, FILE *out)
{
    fprintf(out, "trueline-cc: mode: %s", mode_name(inv->mode));
    if (inv->cache_path)
        fprintf(out, " (cache %s)", inv->cache_path);
    fprintf(out, "\ntrueline-cc: compiler: %s (family %s)\n", inv->compiler_path, tlcc_family_name(inv->family));
    if (inv->version)
        fprintf(out, "trueline-cc: version: %s\n", inv->version);
    put_argv(out, "arguments as given", NULL, &inv->user_args);
    for (int i = 0; i < inv->folds.n; i++)
        fprintf(out, "trueline-cc: folded: %s\n", inv->folds.v[i]);
    for (int i = 0; i < inv->unset_env.n; i++)
        fprintf(out, "trueline-cc: removed from the compiler's environment: %s\n", inv->unset_env.v[i]);
    for (int i = 0; i < inv->forced.n; i++)
        fprintf(out, "trueline-cc: forced: %s\n", inv->forced.v[i]);
    for (int i = 0; i < inv->notes.n; i++)
        fprintf(out, "trueline-cc: note: %s\n", inv->notes.v[i]);
    put_argv(out, "effective argv", inv->compiler_path, &inv->args);
    if (tlcc_argv_keeps_files(inv))
        fprintf(out, "trueline-cc: note: the effective argv is too large to exec (over %d KiB in all or in one "
                     "argument): the compiler gets the arguments as given plus the forced flags, the folded "
                     "variables stay in its environment (and are hashed)\n",
                TLCC_ARGV_EXEC_MAX / 1024);
    fprintf(out, "trueline-cc: effective argv hash (output operand left out): %s\n", inv->argv_hex);
    if (inv->host_compiler || inv->host_from)
        fprintf(out, "trueline-cc: host compiler: %s (from %s)\n", inv->host_compiler ? inv->host_compiler : "(not found)",
                inv->host_from ? inv->host_from : "?");
    for (int i = 0; i < inv->ncomps; i++) {
        const tlcc_component *c = &inv->comps[i];
        char hex[TL_HASH_HEX_LEN + 1];
        tl_hash_hex(c->hash, hex);
        if (c->path)
            fprintf(out, "trueline-cc: component %s: %s %s%s\n", c->role, hex, c->path, c->memo_hit ? " (memo)" : "");
        else
            fprintf(out, "trueline-cc: component %s: absent\n", c->role);
    }
    if (inv->closure_memo)
        fprintf(out, "trueline-cc: closure: from the memo (%d files and directories unchanged)\n", inv->closure_ndeps);
    else if (inv->closure_ndeps >= 0)
        fprintf(out, "trueline-cc: closure: walked (%d files and directories recorded for the next lookup)\n",
                inv->closure_ndeps);
    else
        fprintf(out, "trueline-cc: closure: walked (not memoized: a relative path, a dangling link, a file changed "
                     "in the last 2 s, or the memo is off)\n");
    for (int i = 0; i < inv->env_hashed.n; i++)
        fprintf(out, "trueline-cc: environment: %s\n", inv->env_hashed.v[i]);
    fprintf(out, "trueline-cc: fingerprint: %s (%.3f ms)\n", inv->fp_hex, fingerprint_ms);
    fprintf(out, "trueline-cc: toolchain lookup: %.3f ms (finding the cache and compiler on PATH %.3f ms + fingerprint)\n",
            inv->resolve_ms + fingerprint_ms, inv->resolve_ms);
    if (inv->cache == TLCC_CACHE_CCACHE)
        fprintf(out, "trueline-cc: cache key: CCACHE_COMPILERCHECK=string:%s\n", inv->fp_hex);
    else if (inv->cache == TLCC_CACHE_SCCACHE)
        fprintf(out, "trueline-cc: cache key: SCCACHE_C_CUSTOM_CACHE_BUSTER=%s\n", inv->fp_hex);
    static const char *const how[] = { "", " (read through its index)", " (read record by record: no index)" };
    fprintf(out, "trueline-cc: memo cache: %s%s%s%s\n", inv->memo_dir ? inv->memo_dir : "(off)",
            how[inv->memo_read >= 0 && inv->memo_read <= 2 ? inv->memo_read : 0], inv->memo_problem ? ": " : "",
            inv->memo_problem ? inv->memo_problem : "");
}

void tlcc_explain_toolchain(const tlcc_invocation *inv, FILE *out)
{
    fprintf(out, "compiler\t%s\n", inv->compiler_path);
    if (inv->version)
        fprintf(out, "version\t%s\n", inv->version);
    for (int i = 0; i < inv->ncomps; i++) {
        const tlcc_component *c = &inv->comps[i];
        char hex[TL_HASH_HEX_LEN + 1];
        tl_hash_hex(c->hash, hex);
        fprintf(out, "component\t%s\t%s\t%s\n", c->role, c->path ? hex : "absent", c->path ? c->path : "-");
    }
    for (int i = 0; i < inv->env_hashed.n; i++)
        fprintf(out, "environment\t%s\n", inv->env_hashed.v[i]);
    fprintf(out, "fingerprint\t%s\n", inv->fp_hex);
}
