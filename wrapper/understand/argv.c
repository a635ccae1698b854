#include "understand/argv.h"

#include <errno.h>
#include <libiberty.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "understand/compiler.h"
#include "context.h"
#include "understand/families.h"
#include "trueline/note.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int tlcc_nvcc_env_split(const char *s, tlcc_strv *out)
{
    if (strchr(s, '\\'))
        return -1;
    tlcc_strv words = { 0 };
    char *w = malloc(strlen(s) + 1);
    if (!w)
        return -1;
    while (*s) {
        while (is_space(*s))
            s++;
        if (!*s)
            break;
        size_t n = 0;
        int quoted = 0;
        for (; *s && (quoted || !is_space(*s)); s++) {
            if (*s == '"')
                quoted = !quoted;
            w[n++] = *s;
        }
        w[n] = 0;
        tlcc_strv_push(&words, w);
    }
    free(w);
    tlcc_strv_append(out, &words);
    tlcc_strv_free(&words);
    return 0;
}

void tlcc_nvcc_optf_split(const char *s, tlcc_strv *out)
{
    char *w = malloc(strlen(s) + 1);
    if (!w)
        return;
    while (*s) {
        while (is_space(*s))
            s++;
        if (!*s)
            break;
        size_t n = 0;
        int quoted = 0;
        for (; *s && (quoted || !is_space(*s)); s++) {
            if (*s == '"')
                quoted = !quoted;
            else if (*s == '\\' && s[1])
                w[n++] = *++s;
            else
                w[n++] = *s;
        }
        w[n] = 0;
        tlcc_strv_push(out, w);
    }
    free(w);
}

/* What one options file may hold. nvcc -optf /dev/zero grew trueline-cc by half a gigabyte a second (bare nvcc
 * stops reading at a few megabytes and waits); real options files are kilobytes, the largest link lines a few
 * megabytes. */
#define OPTF_MAX_BYTES (64u << 20)

static char *read_text(const char *path, tl_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        tl_fail(err, "%s: cannot read options file: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0, r;
    char *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n > OPTF_MAX_BYTES) {
            fclose(f);
            free(buf);
            tl_fail(err, "%s: options file larger than %u MiB (a device such as /dev/zero, or not an options file)",
                    path, OPTF_MAX_BYTES >> 20);
            return NULL;
        }
        if (cap - n < 2) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        tl_fail(err, "%s: cannot read options file", path);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

/* nvcc refuses to open a 16th nested options file: "nvcc fatal   : Too many options file opened 'F'" (nvcc 13.0,
 * measured with a chain of files; a file naming itself stops there too). */
#define OPTF_MAX_DEPTH 15

/* The file list of an -optf/--options-file option at a[i] (the next word for the separate form), and in
 * *take how many words the option spans; NULL when a[i] is not one, or when its value is missing (nvcc
 * reports that itself). */
static const char *optf_value(char *const *a, int n, int i, int *take)
{
    *take = 1;
    if (strcmp(a[i], "-optf") == 0 || strcmp(a[i], "--options-file") == 0) {
        *take = 2;
        return i + 1 < n ? a[i + 1] : NULL;
    }
    if (strncmp(a[i], "-optf=", 6) == 0)
        return a[i] + 6;
    if (strncmp(a[i], "--options-file=", 15) == 0)
        return a[i] + 15;
    return NULL;
}

/* Appends to out the words of every file of a comma-separated list, with the -optf options inside expanded
 * in place as nvcc does (a nested -G or -ccbin counts as much as a top-level one). Nested names are relative
 * to the current directory, not to the including file (nvcc --dryrun). Nested names read go to nested. */
static int optf_expand(const char *list, int depth, tlcc_strv *out, tlcc_strv *nested, tl_error *err)
{
    char *copy = strdup(list);
    int rc = copy ? 0 : tl_fail(err, "out of memory");
    for (char *save = NULL, *f = copy ? strtok_r(copy, ",", &save) : NULL; f && rc == 0;
         f = strtok_r(NULL, ",", &save)) {
        if (depth > OPTF_MAX_DEPTH) {
            rc = tl_fail(err, "%s: options files nested more than %d deep (a file that includes itself?); nvcc "
                              "stops there too: \"Too many options file opened\"", f, OPTF_MAX_DEPTH);
            break;
        }
        char *text = read_text(f, err);
        if (!text) {
            rc = -1;
            break;
        }
        tlcc_strv words = { 0 };
        tlcc_nvcc_optf_split(text, &words);
        free(text);
        if (depth > 1)
            tlcc_strv_push(nested, f);
        for (int i = 0, take; i < words.n && rc == 0; i += take) {
            const char *v = optf_value(words.v, words.n, i, &take);
            if (v)
                rc = optf_expand(v, depth + 1, out, nested, err);
            else
                tlcc_strv_push(out, words.v[i]);
        }
        tlcc_strv_free(&words);
    }
    free(copy);
    return rc;
}

/* nvcc reads -optf/--options-file (a comma-separated list of files, like its other list options, nested
 * files included) and does not know @file (`nvcc @f` is "Don't know what to do with '@f'"). */
static int fold_optf(tlcc_invocation *inv, tl_error *err)
{
    tlcc_strv *a = &inv->args;
    for (int i = 0, take; i < a->n; i++) {
        const char *v = optf_value(a->v, a->n, i, &take);
        if (!v)
            continue;
        tlcc_strv words = { 0 }, nested = { 0 };
        if (optf_expand(v, 1, &words, &nested, err) != 0) {
            tlcc_strv_free(&words);
            tlcc_strv_free(&nested);
            return -1;
        }
        /* the list as given, then the nested files (before the splice, which frees the argument v points into) */
        char *inner = tlcc_strv_join(&nested, 0), *joined = tlcc_strv_join(&words, 0);
        tlcc_strv_pushf(&inv->folds, "options file %s%s%s%s: %s", v, nested.n ? " (nested: " : "", inner,
                      nested.n ? ")" : "", joined);
        free(inner);
        free(joined);
        tlcc_strv_free(&nested);
        tlcc_strv_splice(a, i, take, &words);
        /* the spliced words are fully expanded already: continue after them */
        i += words.n - 1;
        tlcc_strv_free(&words);
    }
    return 0;
}

static void fold_nvcc_env(tlcc_invocation *inv, const char *name, int prepend)
{
    const char *v = tlcc_env_snapshot_get(&inv->ctx->env, name);
    if (!v)
        return;
    tlcc_strv words = { 0 };
    if (tlcc_nvcc_env_split(v, &words) != 0) {
        /* Left in the environment: nvcc then fails with its own "Stray '\' character". */
        tlcc_strv_pushf(&inv->notes, "%s holds a backslash, which nvcc refuses: left to nvcc, not folded", name);
        return;
    }
    tlcc_strv_splice(&inv->args, prepend ? 0 : inv->args.n, 0, &words);
    tlcc_strv_pushf(&inv->folds, "%s (%s): %s", name, prepend ? "before the arguments" : "after the arguments", v);
    tlcc_strv_push(&inv->unset_env, name);
    tlcc_strv_pushf(&inv->folded_env, "%s=%s", name, v);
    tlcc_strv_free(&words);
}

/* llvm::Regex::sub: the first match replaced; \N back-references, \t, \n, other escapes literal. */
static char *regex_sub(const regex_t *re, const char *repl, const char *s)
{
    regmatch_t m[10];
    if (regexec(re, s, 10, m, 0) != 0)
        return NULL;
    size_t cap = strlen(s) + strlen(repl) * (strlen(s) + 1) + 1, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    memcpy(out, s, (size_t)m[0].rm_so);
    n = (size_t)m[0].rm_so;
    for (const char *r = repl; *r; r++) {
        if (*r != '\\') {
            out[n++] = *r;
            continue;
        }
        if (!*++r)
            break; /* trailing backslash: dropped, as llvm does */
        if (*r >= '0' && *r <= '9') {
            unsigned ref = 0;
            for (; *r >= '0' && *r <= '9'; r++)
                ref = ref * 10 + (unsigned)(*r - '0');
            r--;
            if (ref < 10 && m[ref].rm_so >= 0) {
                size_t len = (size_t)(m[ref].rm_eo - m[ref].rm_so);
                memcpy(out + n, s + m[ref].rm_so, len);
                n += len;
            }
        } else {
            out[n++] = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
        }
    }
    strcpy(out + n, s + m[0].rm_eo);
    return out;
}

/* Patterns llvm's regex (Henry Spencer's, as clang uses it) refuses, which glibc's regcomp would expand instead:
 * a quantifier on a quantifier ("a++", "a*{2}": REG_BADRPT there, an exponential tree in glibc — found by
 * fuzz/targets/argv.c as a 2 GB regcomp) and bounds over its RE_DUP_MAX of 255. clang then leaves the arguments
 * unchanged, and so do we. */
static int llvm_refuses(const char *p)
{
    int quant = 0;
    for (; *p; p++) {
        if (*p == '\\') {
            if (!*++p)
                break;
            quant = 0;
        } else if (*p == '[') {
            p += p[1] == '^' ? 2 : 1;
            if (*p == ']')
                p++;
            while (*p && *p != ']')
                p++;
            if (!*p)
                return 1; /* unterminated bracket: regcomp fails anyway */
            quant = 0;
        } else if (*p == '*' || *p == '+' || *p == '?' || *p == '{') {
            if (quant)
                return 1;
            if (*p == '{') {
                for (const char *q = p + 1; *q && *q != '}'; q++)
                    if (*q >= '0' && *q <= '9' && strtoul(q, NULL, 10) > 255)
                        return 1;
                const char *e = strchr(p, '}');
                if (!e)
                    return 1;
                p = e;
            }
            quant = 1;
        } else {
            quant = 0;
        }
    }
    return 0;
}

static int is_O_flag(const char *a)
{
    return a[0] == '-' && a[1] == 'O' &&
           (a[2] == 0 || (a[3] == 0 && (a[2] == 's' || a[2] == 'z' || (a[2] >= '0' && a[2] <= '9'))));
}

/* x/X/O edits: deletions done in one pass (each memmove-removal would make a long command line quadratic). */
static void ccc_delete(tlcc_strv *a, const char *e, FILE *log)
{
    int w = 1;
    for (int i = 1; i < a->n; i++) {
        int hit = e[0] == 'O' ? is_O_flag(a->v[i]) : strcmp(e + 1, a->v[i]) == 0;
        if (!hit) {
            a->v[w++] = a->v[i];
            continue;
        }
        if (log)
            fprintf(log, "### Deleting argument %s\n", a->v[i]);
        free(a->v[i]);
        if (e[0] != 'X')
            continue;
        if (i + 1 < a->n) {
            if (log)
                fprintf(log, "### Deleting argument %s\n", a->v[i + 1]);
            free(a->v[++i]);
        } else if (log) {
            fprintf(log, "### Invalid X edit, end of command line!\n");
        }
    }
    a->n = w;
    a->v[w] = NULL;
    if (e[0] == 'O') {
        if (log)
            fprintf(log, "### Adding argument %s at end\n", e);
        tlcc_strv_pushf(a, "-%s", e);
    }
}

/* Mirrors clang's applyOneOverrideOption (clang/tools/driver/driver.cpp), messages included. */
static void ccc_one(tlcc_strv *a, const char *e, FILE *log)
{
    size_t len = strlen(e);
    if (e[0] == '^') {
        if (log)
            fprintf(log, "### Adding argument %s at beginning\n", e + 1);
        tlcc_strv_insert(a, 1, e + 1);
    } else if (e[0] == '+') {
        if (log)
            fprintf(log, "### Adding argument %s at end\n", e + 1);
        tlcc_strv_push(a, e + 1);
    } else if (e[0] == 's' && e[1] == '/' && len >= 3 && e[len - 1] == '/' && memchr(e + 2, '/', len - 3)) {
        char *pat = strdup(e + 2);
        char *slash = strchr(pat, '/');
        *slash = 0;
        char *repl = slash + 1;
        repl[strlen(repl) - 1] = 0;
        /* compiled once per edit, not per argument: a long script over a long command line stays linear */
        regex_t re;
        int ok = !llvm_refuses(pat) && regcomp(&re, pat, REG_EXTENDED) == 0;
        for (int i = 1; ok && i < a->n; i++) {
            char *r = regex_sub(&re, repl, a->v[i]);
            if (r && strcmp(r, a->v[i]) != 0) {
                if (log)
                    fprintf(log, "### Replacing '%s' with '%s'\n", a->v[i], r);
                tlcc_strv_replace(a, i, r);
            }
            free(r);
        }
        if (ok)
            regfree(&re);
        free(pat);
    } else if (e[0] == 'x' || e[0] == 'X' || e[0] == 'O') {
        ccc_delete(a, e, log);
    } else if (log) {
        fprintf(log, "### Unrecognized edit: %s\n", e);
    }
}

void tlcc_ccc_override(tlcc_strv *args, const char *script, FILE *log)
{
    if (script[0] == '#') {
        script++;
        log = NULL;
    }
    if (log)
        fprintf(log, "### CCC_OVERRIDE_OPTIONS: %s\n", script);
    /* Edits are separated by single spaces; empty edits are skipped. */
    for (const char *s = script; *s;) {
        const char *end = strchr(s, ' ');
        if (!end)
            end = s + strlen(s);
        if (end != s) {
            char *edit = strndup(s, (size_t)(end - s));
            ccc_one(args, edit, log);
            free(edit);
        }
        s = *end ? end + 1 : end;
    }
}

/* gcc and clang expand @file (GNU quoting, nested files, an unreadable file left as is): libiberty's
 * expandargv is exactly gcc's own implementation. */
static void fold_response_files(tlcc_invocation *inv)
{
    int has_at = 0;
    struct stat st;
    for (int i = 0; i < inv->args.n; i++) {
        /* expandargv exit()s on "@DIR" with its own message, so the compiler would never run: leave such
         * arguments to the compiler, which reports them in its own words (found by fuzz/targets/argv.c). */
        if (inv->args.v[i][0] == '@' && stat(inv->args.v[i] + 1, &st) == 0 && S_ISDIR(st.st_mode))
            return;
        has_at |= inv->args.v[i][0] == '@';
    }
    if (!has_at)
        return;
    int argc = inv->args.n + 1;
    char **argv = malloc(((size_t)argc + 1) * sizeof *argv), **orig = argv;
    argv[0] = inv->compiler_path;
    memcpy(argv + 1, inv->args.v, (size_t)inv->args.n * sizeof *argv);
    argv[argc] = NULL;
    expandargv(&argc, &argv);
    if (argv != orig) {
        for (int i = 0; i < inv->args.n; i++)
            if (inv->args.v[i][0] == '@')
                tlcc_strv_pushf(&inv->folds, "response file %s", inv->args.v[i] + 1);
        tlcc_strv fresh = { 0 };
        for (int i = 1; i < argc; i++)
            tlcc_strv_push(&fresh, argv[i]);
        tlcc_strv_free(&inv->args);
        inv->args = fresh;
        freeargv(argv);
    }
    free(orig);
}

int tlcc_argv_exec_too_big(const tlcc_strv *args)
{
    size_t total = 0;
    for (int i = 0; i < args->n; i++) {
        size_t n = strlen(args->v[i]) + 1;
        total += n + sizeof(char *);
        if (n > TLCC_ARGV_EXEC_MAX || total > TLCC_ARGV_EXEC_MAX)
            return 1;
    }
    return 0;
}

int tlcc_effective_argv(tlcc_invocation *inv, tl_error *err)
{
    tlcc_strv_free(&inv->args);
    tlcc_strv_append(&inv->args, &inv->user_args);
    const unsigned folds = tlcc_family_of(inv->family)->folds;
    if (folds & TLCC_FOLD_NVCC_ENV) {
        fold_nvcc_env(inv, "NVCC_PREPEND_FLAGS", 1);
        fold_nvcc_env(inv, "NVCC_APPEND_FLAGS", 0);
    }
    if ((folds & TLCC_FOLD_OPTF) && fold_optf(inv, err) != 0)
        return -1;
    if (folds & TLCC_FOLD_RESPONSE_FILES)
        fold_response_files(inv);
    const char *ccc = (folds & TLCC_FOLD_CCC_OVERRIDE) ? inv->ctx->env.v[TLCC_EV_CCC_OVERRIDE_OPTIONS] : NULL;
    if (ccc) {
        tlcc_strv a = { 0 };
        tlcc_strv_push(&a, inv->compiler_path);
        tlcc_strv_append(&a, &inv->args);
        /* too big to exec: clang gets the variable and the response files and prints its own report */
        tlcc_ccc_override(&a, ccc, tlcc_argv_exec_too_big(&inv->args) ? NULL : stderr);
        tlcc_strv_free(&inv->args);
        for (int i = 1; i < a.n; i++)
            tlcc_strv_push(&inv->args, a.v[i]);
        tlcc_strv_free(&a);
        tlcc_strv_pushf(&inv->folds, "CCC_OVERRIDE_OPTIONS: %s", ccc);
        tlcc_strv_push(&inv->unset_env, "CCC_OVERRIDE_OPTIONS");
        tlcc_strv_pushf(&inv->folded_env, "CCC_OVERRIDE_OPTIONS=%s", ccc);
    }
    return 0;
}

int tlcc_argv_keeps_files(const tlcc_invocation *inv)
{
    /* nothing folded (the common case): the arguments are the caller's, which did exec, plus forced flags */
    return inv->folds.n > 0 && tlcc_argv_exec_too_big(&inv->args);
}

void tlcc_argv_for_exec(const tlcc_invocation *inv, tlcc_strv *out)
{
    if (tlcc_argv_keeps_files(inv)) {
        /* The arguments as given (the compiler reads the files itself) and the forced flags, which force.c
         * appended after everything folded. */
        tlcc_strv_append(out, &inv->user_args);
        tlcc_strv_append(out, &inv->forced);
    } else {
        tlcc_strv_append(out, &inv->args);
    }
}

void tlcc_argv_hash(tlcc_invocation *inv)
{
    tl_hash_hex(tl_note_argv_hash(inv->args.v, inv->args.n), inv->argv_hex);
}
