/* Toolchain components for the statement's resolvedDependencies (toolchain.h). */
#ifdef TL_HAVE_ATTEST
#include "attest/toolchain.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int tlck_sha256_file(const char *path, char out[TLCK_SHA256_HEX], tl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tl_fail(err, "%s: cannot open: %s", path, strerror(errno));
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    unsigned char buf[1 << 16], d[crypto_hash_sha256_BYTES];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        crypto_hash_sha256_update(&st, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return tl_fail(err, "%s: read error: the file was not read completely", path);
    crypto_hash_sha256_final(&st, d);
    sodium_bin2hex(out, TLCK_SHA256_HEX, d, sizeof d);
    return 0;
}

/* What one query answered: the fingerprint and the component lines. */
struct answer {
    char *driver, *fingerprint, *version;
    char **lines; size_t nlines;
};

static void answer_free(struct answer *q)
{
    for (size_t i = 0; i < q->nlines; i++)
        free(q->lines[i]);
    free(q->lines);
    free(q->fingerprint);
    free(q->version);
}

/* trueline-cc beside this trueline-check (an installed or built pair), else the one on PATH. */
static char *wrapper_path(const char *self_exe)
{
    const char *slash = self_exe ? strrchr(self_exe, '/') : NULL;
    if (slash) {
        char *p = NULL;
        if (asprintf(&p, "%.*s/trueline-cc", (int)(slash - self_exe), self_exe) >= 0 && access(p, X_OK) == 0)
            return p;
        free(p);
    }
    return strdup("trueline-cc");
}

/* The compile the query describes: the recorded compile's arguments, asked in its directory (what selects
 * the toolchain rides on them: nvcc's -ccbin that CMake adds from CUDAHOSTCXX, gcc's -B, --sysroot, a
 * -specs file), else the driver compiling one source. Never run: the query only fingerprints. */
static int query(const char *wrapper, const char *driver, const struct tlck_att_record *as_recorded,
                 struct answer *q)
{
    memset(q, 0, sizeof *q);
    size_t nargs = as_recorded ? as_recorded->nargs : 0;
    const char *src = strstr(driver, "nvcc") ? "trueline-attest-probe.cu" : "trueline-attest-probe.c";
    const char **argv = calloc(nargs + 6, sizeof *argv);
    if (!argv)
        return -1;
    size_t n = 0;
    argv[n++] = wrapper;
    argv[n++] = "--trueline-toolchain";
    argv[n++] = driver;
    for (size_t i = 0; i < nargs; i++)
        argv[n++] = as_recorded->args[i];
    if (!nargs) {
        argv[n++] = "-c";
        argv[n++] = src;
    }
    const char *dir = nargs ? as_recorded->cwd : NULL;
    int fds[2];
    if (pipe(fds) != 0) {
        free(argv);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        free(argv);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        if (dir && chdir(dir) != 0) /* the build tree is gone: relative names then resolve from here */
            dir = NULL;
        execvp(wrapper, (char *const *)argv);
        _exit(127);
    }
    free(argv);
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (in && (len = getline(&line, &cap, in)) > 0) {
        if (line[len - 1] == '\n')
            line[len - 1] = 0;
        char **slot;
        if (strncmp(line, "fingerprint\t", 12) == 0)
            q->fingerprint = strdup(line + 12);
        else if (strncmp(line, "version\t", 8) == 0)
            q->version = strdup(line + 8);
        else if (strncmp(line, "component\t", 10) == 0 && (slot = tlck_att_push(&q->lines, &q->nlines, sizeof *q->lines)))
            *slot = strdup(line + 10);
    }
    free(line);
    if (in)
        fclose(in);
    else
        close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !q->fingerprint) {
        if (!nargs) /* a replay that fails is followed by the driver's own query, which speaks */
            fprintf(stderr, "trueline-check: --attest: %s --trueline-toolchain %s gave no fingerprint (exit %d): its "
                        "fingerprints stay unresolved\n", wrapper, driver, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        answer_free(q);
        return -1;
    }
    q->driver = (char *)driver;
    return 0;
}

/* "ROLE\tXXH3\tPATH" -> a component with the sha256 of PATH read now. */
static int component(struct tlck_att_toolchain *t, const char *line)
{
    const char *t1 = line ? strchr(line, '\t') : NULL, *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2)
        return 0;
    struct tlck_att_component *c = tlck_att_push(&t->comp, &t->ncomp, sizeof *t->comp);
    if (!c)
        return -1;
    c->role = strndup(line, (size_t)(t1 - line));
    c->xxh3 = strndup(t1 + 1, (size_t)(t2 - t1 - 1));
    c->path = strdup(t2 + 1);
    char sha[TLCK_SHA256_HEX];
    tl_error err;
    if (strcmp(c->xxh3, "absent") != 0 && tlck_sha256_file(c->path, sha, &err) == 0)
        c->sha256 = strdup(sha);
    else if (strcmp(c->xxh3, "absent") != 0)
        fprintf(stderr, "trueline-check: --attest: toolchain component %s\n", err.msg);
    return 0;
}

static int add_fingerprint(struct tlck_attestation *a, const struct tlck_att_record *r)
{
    for (size_t i = 0; i < a->ntc; i++)
        if (strcmp(a->tc[i].fingerprint, r->fingerprint) == 0)
            return 0;
    struct tlck_att_toolchain *t = tlck_att_push(&a->tc, &a->ntc, sizeof *a->tc);
    if (!t || !(t->fingerprint = strdup(r->fingerprint)))
        return -1;
    t->driver = r->driver ? strdup(r->driver) : NULL;
    t->first = r;
    t->compiler_version = r->compiler_version ? strdup(r->compiler_version) : NULL;
    return 0;
}

/* The driver a record names is a basename (g++, nvcc): a --toolchain of that name (/usr/local/cuda/bin/nvcc)
 * says which one is meant, and the record's own arguments are asked of it, so that a driver off PATH (torch's
 * PYTORCH_NVCC names nvcc by its path) resolves as recorded, -ccbin included. */
static const char *driver_for(const char *recorded, const char *const *drivers, size_t ndrivers)
{
    for (size_t i = 0; i < ndrivers; i++) {
        const char *b = strrchr(drivers[i], '/');
        if (strcmp(b ? b + 1 : drivers[i], recorded) == 0)
            return drivers[i];
    }
    return recorded;
}

/* Every executable named `name` on PATH, in PATH's order: a record names its driver by file name, and the first
 * one PATH gives may be a shim in front of the one the build ran (a /usr/local/bin/nvcc script exec'ing the
 * toolkit's nvcc fingerprints as itself). Asking each in turn finds the one whose fingerprint the record has. */
static size_t on_path(const char *name, char ***out)
{
    const char *path = getenv("PATH");
    size_t n = 0;
    *out = NULL;
    if (!path || strchr(name, '/'))
        return 0;
    char *copy = strdup(path);
    for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
        char *p = NULL, **slot;
        if (asprintf(&p, "%s/%s", d, name) < 0)
            break;
        int seen = access(p, X_OK) != 0;
        for (size_t i = 0; !seen && i < n; i++)
            seen = strcmp((*out)[i], p) == 0;
        if (!seen && (slot = tlck_att_push(out, &n, sizeof **out)))
            *slot = p;
        else
            free(p);
    }
    free(copy);
    return n;
}

static int all_resolved(const struct tlck_attestation *a)
{
    for (size_t i = 0; i < a->ntc; i++)
        if (!a->tc[i].resolved)
            return 0;
    return 1;
}

int tlck_att_resolve_toolchains(struct tlck_attestation *a, const char *const *drivers, size_t ndrivers,
                                const char *self_exe)
{
    for (size_t i = 0; i < a->nobj; i++)
        for (size_t r = 0; r < a->obj[i].nrec; r++)
            if (a->obj[i].rec[r].fingerprint && add_fingerprint(a, &a->obj[i].rec[r]) != 0)
                return -1;
    const char **asked = NULL;
    size_t nasked = 0;
    for (size_t i = 0; i < ndrivers; i++)
        if (tlck_att_push(&asked, &nasked, sizeof *asked))
            asked[nasked - 1] = drivers[i];
    if (!ndrivers) /* the drivers the records name, each once */
        for (size_t i = 0; i < a->ntc; i++) {
            size_t k = 0;
            while (a->tc[i].driver && k < nasked && strcmp(asked[k], a->tc[i].driver) != 0)
                k++;
            if (a->tc[i].driver && k == nasked && tlck_att_push(&asked, &nasked, sizeof *asked))
                asked[nasked - 1] = a->tc[i].driver;
        }
    char *wrapper = wrapper_path(self_exe);
    int rc = 0;
    /* each fingerprint's first record asked as recorded, then the drivers as such for what is still open */
    for (size_t k = 0; wrapper && rc == 0 && k < a->ntc + nasked; k++) {
        const struct tlck_att_record *r = k < a->ntc ? a->tc[k].first : NULL;
        if (k < a->ntc && (a->tc[k].resolved || !r || !r->nargs || !a->tc[k].driver))
            continue;
        if (k >= a->ntc && all_resolved(a))
            break;
        const char *driver = k < a->ntc ? driver_for(a->tc[k].driver, drivers, ndrivers) : asked[k - a->ntc];
        /* a replay by file name asks each such driver on PATH until one has the record's fingerprint */
        char **cands = NULL;
        size_t ncands = k < a->ntc ? on_path(driver, &cands) : 0;
        for (size_t c = 0; rc == 0 && c < (ncands ? ncands : 1) && !(k < a->ntc && a->tc[k].resolved); c++) {
            struct answer q;
            if (query(wrapper, ncands ? cands[c] : driver, r, &q) != 0)
                continue;
            if (k < a->ntc && strcmp(a->tc[k].fingerprint, q.fingerprint) != 0 && !a->tc[k].replayed)
                a->tc[k].replayed = strdup(q.fingerprint);
            for (size_t i = 0; rc == 0 && i < a->ntc; i++) {
                struct tlck_att_toolchain *t = &a->tc[i];
                if (t->resolved || strcmp(t->fingerprint, q.fingerprint) != 0)
                    continue;
                t->resolved = 1;
                for (size_t l = 0; rc == 0 && l < q.nlines; l++)
                    rc = component(t, q.lines[l]);
            }
            answer_free(&q);
        }
        for (size_t c = 0; c < ncands; c++)
            free(cands[c]);
        free(cands);
    }
    /* an unresolved fingerprint says what its own compile, asked again, gave: the toolchain changed since */
    for (size_t k = 0; rc == 0 && k < a->ntc; k++)
        if (!a->tc[k].resolved)
            fprintf(stderr, "trueline-check: --attest: toolchain %s (%s, first recorded for %s) not found here%s%s%s\n",
                    a->tc[k].fingerprint, a->tc[k].driver ? a->tc[k].driver : "?",
                    a->tc[k].first && a->tc[k].first->source ? a->tc[k].first->source : "?",
                    a->tc[k].replayed ? ": its compile, asked again now, fingerprints " : "",
                    a->tc[k].replayed ? a->tc[k].replayed : "", a->tc[k].replayed ? " (a component or setting changed)" : "");
    free(wrapper);
    free(asked);
    return rc;
}
#endif
