/* Several GPU cores at once. Tensor-parallel inference runs one process per GPU, so a hang or a fault leaves a
 * core per rank; the rank that faulted or spun elsewhere is usually one, the others wait in a collective. One
 * table says where each core's warps stand, cores in the same state are grouped, and the odd ones out are
 * flagged and then shown in detail. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/coredump/coredump_report.h"
#include "tools/tools.h"
#include "trueline/file_kind.h"

static int push(struct cd_cores *c, const char *path)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        char **v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return -1;
        c->v = v;
        c->cap = cap;
    }
    return (c->v[c->n] = strdup(path)) ? (int)c->n++ * 0 : -1;
}

/* An ELF core of EM_CUDA: what the CUDA driver writes (little-endian, as the tables it holds). */
static int is_cuda_core(const char *path)
{
    enum tl_file_kind kind;
    struct tl_elf_ident id;
    return tl_sniff_path(path, &kind, &id) == 0 && kind == TL_FILE_ELF && !id.big_endian && id.type == 4 /* ET_CORE */ &&
           id.machine == TL_EM_CUDA;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cd_cores_expand(struct cd_cores *c, const char *const *paths, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            rc |= push(c, paths[i]); /* a file: read (and named if bad) like any core */
            continue;
        }
        DIR *d = opendir(paths[i]);
        if (!d) {
            tl_report_error("trueline-check", paths[i], "cannot read directory: %s", strerror(errno));
            rc = -1;
            continue;
        }
        size_t from = c->n;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.')
                continue;
            char *p = tlck_asprintf("%s/%s", paths[i], de->d_name);
            if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && is_cuda_core(p))
                rc |= push(c, p);
            free(p);
        }
        closedir(d);
        if (c->n == from) {
            tl_report_error("trueline-check", paths[i], "no CUDA GPU coredump in this directory");
            rc = -1;
        } else {
            qsort(c->v + from, c->n - from, sizeof *c->v, by_name); /* ranks in name order */
        }
    }
    return rc;
}

void cd_cores_free(struct cd_cores *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->v[i]);
    free(c->v);
    memset(c, 0, sizeof *c);
}

void cd_summarize(const struct cd_report *r, struct cd_summary *s)
{
    memset(s, 0, sizeof *s);
    s->ok = 1;
    s->path = strdup(r->path);
    s->device = strdup(r->core->ndevices ? r->core->devices[0].name : "no device");
    s->warps = r->nwarps_total;
    const struct cd_stop *st = r->nstops ? &r->stops[0] : NULL;
    if (r->on_exception && st && st->kind == CD_STOP_TRAP)
        s->state = strdup("SIGTRAP (trap or breakpoint)");
    else if (r->on_exception)
        s->state = strdup(st && st->exception ? tlck_cd_exception_name(st->exception) : "exception");
    else
        s->state = strdup(st ? "running (no exception)" : "no warps");
    const struct cd_where *w = st ? &st->where : NULL;
    s->kernel = strdup(w && w->found && w->name ? w->name : st ? "PC in no device image" : "-");
    if (w && w->nframes) {
        const char *f = w->frames[0].file ? w->frames[0].file : "?";
        const char *b = strrchr(f, '/');
        s->line = tlck_asprintf("%s:%u", b ? b + 1 : f, w->frames[0].line);
    } else {
        s->line = strdup("-");
    }
}

void cd_summary_free(struct cd_summary *s)
{
    free(s->path);
    free(s->device);
    free(s->state);
    free(s->kernel);
    free(s->line);
}

static int same_state(const struct cd_summary *a, const struct cd_summary *b)
{
    return a->ok && b->ok && strcmp(a->state, b->state) == 0 && strcmp(a->kernel, b->kernel) == 0 &&
           strcmp(a->line, b->line) == 0;
}

/* Numbers the groups (first appearance order) and flags every core outside the largest group as odd; with a
 * single group nothing is odd and the first readable core is shown in detail. */
static size_t group(struct cd_summary *s, size_t n, size_t *largest)
{
    size_t ngroups = 0, best = 0, best_n = 0;
    for (size_t i = 0; i < n; i++) {
        s[i].group = (size_t)-1; /* an unreadable core is in no group */
        if (!s[i].ok)
            continue;
        s[i].group = ngroups;
        for (size_t j = 0; j < i; j++)
            if (same_state(&s[i], &s[j])) {
                s[i].group = s[j].group;
                break;
            }
        if (s[i].group == ngroups)
            ngroups++;
    }
    for (size_t g = 0; g < ngroups; g++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += s[i].ok && s[i].group == g;
        if (k > best_n)
            best = g, best_n = k;
    }
    for (size_t i = 0; i < n; i++)
        s[i].odd = s[i].ok && ngroups > 1 && s[i].group != best;
    for (size_t i = 0; ngroups == 1 && i < n; i++)
        if (s[i].ok) {
            s[i].odd = 1; /* all agree: the first readable core stands for them */
            break;
        }
    *largest = best;
    return ngroups;
}

void cd_emit_summary_text(FILE *out, struct cd_summary *s, size_t n)
{
    size_t largest, ngroups = group(s, n, &largest), nodd = 0;
    for (size_t i = 0; i < n; i++)
        nodd += s[i].odd && ngroups > 1;
    fprintf(out, "%zu cores, %zu state%s", n, ngroups, ngroups == 1 ? "" : "s");
    if (ngroups > 1)
        fprintf(out, "; %zu odd one%s out (marked !)", nodd, nodd == 1 ? "" : "s");
    fputs("\n\n", out);
    for (size_t g = 0; g < ngroups; g++) {
        const struct cd_summary *first = NULL;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (s[i].group == g && s[i].ok && (k++, !first))
                first = &s[i];
        if (!first)
            continue;
        fprintf(out, "%s %zu core%s: %s in %s at %s\n", ngroups > 1 && g != largest ? "!" : " ", k, k == 1 ? "" : "s",
                first->state, first->kernel, first->line);
        for (size_t i = 0; i < n; i++)
            if (s[i].group == g && s[i].ok)
                fprintf(out, "      %s (%s, %zu resident warp%s)\n", s[i].path, s[i].device, s[i].warps,
                        s[i].warps == 1 ? "" : "s");
    }
    for (size_t i = 0; i < n; i++)
        if (!s[i].ok)
            fprintf(out, "  unreadable: %s\n", s[i].path ? s[i].path : "?");
    fputs(ngroups > 1 ? "\nThe odd cores in detail:\n" : "\nThe first core in detail:\n", out);
}

void cd_emit_summary_json(struct tlck_jw *w, struct cd_summary *s, size_t n)
{
    size_t largest, ngroups = group(s, n, &largest);
    tlck_jw_array(w, "groups");
    for (size_t g = 0; g < ngroups; g++) {
        const struct cd_summary *first = NULL;
        for (size_t i = 0; i < n && !first; i++)
            if (s[i].group == g && s[i].ok)
                first = &s[i];
        if (!first)
            continue;
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "state", first->state);
        tlck_jw_str(w, "kernel", first->kernel);
        tlck_jw_str(w, "line", first->line);
        tlck_jw_bool(w, "odd", ngroups > 1 && g != largest);
        tlck_jw_array(w, "cores");
        for (size_t i = 0; i < n; i++)
            if (s[i].group == g && s[i].ok)
                tlck_jw_str(w, NULL, s[i].path);
        tlck_jw_end(w);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
}
