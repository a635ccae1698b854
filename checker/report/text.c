/* The text report, for people: findings grouped per file and check, each finding one line
 * ("FILE: SEVERITY [CHECK] SYMBOL: MESSAGE", so that grep still finds them), and
 *   - a list (findings in a row of one check with the same severity and hint, e.g. one per function without
 *     line rows) shows its first LIST_SHOWN entries and "... and K more" (--verbose shows all);
 *   - a hint is printed once per check and run, after the first list that carries it;
 *   - the details of a summary finding (each symbol stl-leak counts) show with --verbose only;
 *   - where two findings of a group name symbols that demangle alike, their mangled names follow in brackets;
 *   - on a terminal, lines are wrapped at its width (report/text_wrap.c); piped, never.
 * JSON, SARIF and JUnit list every finding. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/package_report.h"
#include "report/package_summary.h"
#include "report/report.h"
#include "report/text_escape.h"
#include "report/text_wrap.h"

#define LIST_SHOWN 5

struct style {
    const char *red, *yel, *off;
    size_t width;
};

/* The hints already printed in this run: (check, hint) pairs. */
struct shown_hints {
    const struct tlck_finding **v;
    size_t n, cap;
};

static int hint_shown(struct shown_hints *h, const struct tlck_finding *x)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->v[i]->check, x->check) == 0 && strcmp(h->v[i]->hint, x->hint) == 0)
            return 1;
    if (tlck_grow((void **)&h->v, &h->cap, h->n + 1, sizeof *h->v) == 0)
        h->v[h->n++] = x;
    return 0;
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Do x and y belong to one list? */
static int same_list(const struct tlck_finding *x, const struct tlck_finding *y)
{
    return x->severity == y->severity && x->suppressed == y->suppressed && same_str(x->hint, y->hint) &&
           !x->symbol == !y->symbol && strcmp(x->check, y->check) == 0;
}

static void put(FILE *out, const struct style *st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(FILE *out, const struct style *st, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n >= 0)
        tlck_text_put(out, line, st->width);
    free(line);
}

static const char *sev_color(const struct style *st, enum tlck_severity s)
{
    return s == TLCK_SEV_ERROR ? st->red : s == TLCK_SEV_WARNING ? st->yel : "";
}

static void finding_line(FILE *out, const struct style *st, const struct tlck_finding *x, int with_mangled)
{
    const char *sym = x->symbol ? x->symbol : "";
    int mangled = with_mangled && x->mangled;
    put(out, st, "%s: %s%s%s [%s]%s %s%s%s%s%s%s", x->file, sev_color(st, x->severity), tlck_severity_name(x->severity),
        st->off, x->check, x->suppressed ? " (suppressed)" : "", sym, mangled ? " [" : "", mangled ? x->mangled : "",
        mangled ? "]" : "", x->symbol ? ": " : "", x->message ? x->message : "");
}

/* A finding and its place in the group, sorted by symbol. */
struct named {
    const struct tlck_finding *x;
    size_t at;
};

static int by_symbol(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->x->symbol, ((const struct named *)b)->x->symbol);
}

/* Marks in twin[] the findings of g[0..n) whose symbol another one of them also names. */
static void mark_twins(const struct tlck_finding **g, size_t n, unsigned char *twin)
{
    struct named *s = malloc((n ? n : 1) * sizeof *s);
    size_t m = 0;
    if (!s)
        return;
    for (size_t i = 0; i < n; i++)
        if (g[i]->symbol && g[i]->mangled)
            s[m++] = (struct named){ g[i], i };
    qsort(s, m, sizeof *s, by_symbol);
    for (size_t i = 0; i + 1 < m; i++)
        if (strcmp(s[i].x->symbol, s[i + 1].x->symbol) == 0)
            twin[s[i].at] = twin[s[i + 1].at] = 1;
    free(s);
}

/* One check's findings of one file, g[0..n), in the order the check emitted them. */
static void check_group(FILE *out, const struct style *st, const struct tlck_finding **g, size_t n, int verbose,
                        struct shown_hints *hints)
{
    unsigned char *twin = calloc(n ? n : 1, 1);
    if (twin)
        mark_twins(g, n, twin);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same_list(g[i], g[j]); j++)
            ;
        size_t len = j - i, shown = verbose || len <= LIST_SHOWN + 1 ? len : LIST_SHOWN;
        for (size_t k = i; k < i + shown; k++)
            finding_line(out, st, g[k], twin && twin[k]);
        if (shown < len)
            put(out, st, "%s: %s%s%s [%s]%s ... and %zu more like these (--verbose lists all)", g[i]->file,
                sev_color(st, g[i]->severity), tlck_severity_name(g[i]->severity), st->off, g[i]->check,
                g[i]->suppressed ? " (suppressed)" : "", len - shown);
        if (g[i]->hint && !hint_shown(hints, g[i]))
            put(out, st, "    hint: %s", g[i]->hint);
    }
    free(twin);
}

/* ---- a package's findings that repeat across its members ----
 * The same finding (check, severity, symbol, message, hint) in several members of one package is said once, for
 * the package, with the count and the members' paths inside it: a wheel's hundred stripped modules are one line,
 * as auditwheel reports a package, not a log of its members. */

struct member_finding {
    const struct tlck_finding *x;
    size_t file;
};

static int cmp_str(const char *a, const char *b)
{
    return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

static int cmp_finding(const struct tlck_finding *a, const struct tlck_finding *b)
{
    int c = strcmp(a->check, b->check);
    if (!c)
        c = (int)b->severity - (int)a->severity;
    if (!c)
        c = (int)a->suppressed - (int)b->suppressed;
    if (!c)
        c = cmp_str(a->symbol, b->symbol);
    if (!c)
        c = cmp_str(a->message, b->message);
    if (!c)
        c = cmp_str(a->hint, b->hint);
    return c;
}

static int by_finding(const void *pa, const void *pb)
{
    const struct member_finding *a = pa, *b = pb;
    int c = cmp_finding(a->x, b->x);
    return c ? c : a->file < b->file ? -1 : a->file > b->file ? 1 : a->x < b->x ? -1 : a->x > b->x;
}

static const char *in_package(const struct tlck_file *f)
{
    size_t n = strlen(f->path);
    return strncmp(f->display, f->path, n) == 0 && f->display[n] == '!' ? f->display + n + 1 : f->display;
}

/* Prints the findings that repeat in two or more members of the package s once each, and marks them in
 * grouped (one flag per finding of each member, grouped[k - s->first][i]) for the members' own lists to skip. */
static void package_groups(FILE *out, const struct style *st, const struct tlck_results *r,
                           const struct tlck_package_summary *s, int verbose, struct shown_hints *hints,
                           unsigned char **grouped)
{
    size_t n = 0;
    for (size_t k = s->first; k < s->first + s->n; k++)
        n += r->findings[k].n;
    struct member_finding *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return;
    n = 0;
    for (size_t k = s->first; k < s->first + s->n; k++)
        for (size_t i = 0; i < r->findings[k].n; i++)
            if (verbose || !r->findings[k].v[i].detail)
                v[n++] = (struct member_finding){ &r->findings[k].v[i], k };
    qsort(v, n, sizeof *v, by_finding);
    for (size_t i = 0, j; i < n; i = j) {
        size_t members = 1;
        for (j = i + 1; j < n && cmp_finding(v[i].x, v[j].x) == 0; j++)
            members += v[j].file != v[j - 1].file;
        if (members < 2)
            continue;
        for (size_t k = i; k < j; k++)
            if (grouped[v[k].file - s->first])
                grouped[v[k].file - s->first][v[k].x - r->findings[v[k].file].v] = 1;
        char *list = NULL;
        size_t len = 0, shown = 0, limit = verbose ? members : LIST_SHOWN;
        FILE *m = open_memstream(&list, &len);
        for (size_t k = i; m && k < j && shown < limit; k++)
            if (k == i || v[k].file != v[k - 1].file)
                fprintf(m, "%s%s", shown++ ? ", " : "", in_package(&r->files[v[k].file]));
        if (m && members > shown)
            fprintf(m, " and %zu more", members - shown);
        if (m && fclose(m) != 0) {
            free(list);
            list = NULL;
        }
        const struct tlck_finding *x = v[i].x;
        put(out, st, "%s: %s%s%s [%s]%s %s%s%s (in %zu members: %s)", s->path, sev_color(st, x->severity),
            tlck_severity_name(x->severity), st->off, x->check, x->suppressed ? " (suppressed)" : "",
            x->symbol ? x->symbol : "", x->symbol ? ": " : "", x->message ? x->message : "", members,
            list ? list : "?");
        free(list);
        if (x->hint && !hint_shown(hints, x))
            put(out, st, "    hint: %s", x->hint);
    }
    free(v);
}

/* A file's findings grouped by check, the checks in the order they first appear; those marked in skip (a
 * package's repeated findings, said for the package) are left out. */
static void file_findings(FILE *out, const struct style *st, const struct tlck_findings *fs, int verbose,
                          struct shown_hints *hints, const unsigned char *skip)
{
    const struct tlck_finding **g = malloc((fs->n ? fs->n : 1) * sizeof *g);
    unsigned char *done = calloc(fs->n ? fs->n : 1, 1);
    if (!g || !done) {
        free(g);
        free(done);
        return;
    }
    for (size_t k = 0; k < fs->n; k++) {
        if (done[k])
            continue;
        size_t n = 0;
        for (size_t m = k; m < fs->n; m++)
            if (!done[m] && strcmp(fs->v[m].check, fs->v[k].check) == 0) {
                if ((verbose || !fs->v[m].detail) && !(skip && skip[m]))
                    g[n++] = &fs->v[m];
                done[m] = 1;
            }
        check_group(out, st, g, n, verbose, hints);
    }
    free(g);
    free(done);
}

/* The details behind summaries (counted among the findings above, listed only with --verbose). */
static size_t hidden_details(const struct tlck_results *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->findings[i].n; k++)
            n += r->findings[i].v[k].detail;
    return n;
}

static int text_body(FILE *out, const struct tlck_results *r, const struct tlck_options *o, const struct style st)
{
    struct shown_hints hints = { 0 };
    size_t npkg = r->npackages, p = 0;
    const struct tlck_package_summary *pkg = r->packages;
    unsigned char **grouped = NULL; /* the current package's: one flag array per member */
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct tlck_file *f = &r->files[i];
        if (p < npkg && i == pkg[p].first) {
            grouped = calloc(pkg[p].n, sizeof *grouped);
            for (size_t k = 0; grouped && k < pkg[p].n; k++)
                grouped[k] = calloc(r->findings[i + k].n ? r->findings[i + k].n : 1, 1);
            if (grouped)
                package_groups(out, &st, r, &pkg[p], o->verbose, &hints, grouped);
        }
        const unsigned char *skip = grouped && p < npkg && i >= pkg[p].first ? grouped[i - pkg[p].first] : NULL;
        if (f->error)
            put(out, &st, "%s: %serror%s: cannot read: %s", f->display, st.red, st.off, f->error);
        else
            file_findings(out, &st, &r->findings[i], o->verbose, &hints, skip);
        if (p < npkg && i + 1 == pkg[p].first + pkg[p].n) {
            for (size_t k = 0; grouped && k < pkg[p].n; k++)
                free(grouped[k]);
            free(grouped);
            grouped = NULL;
            p++;
        }
    }
    free(hints.v);
    for (size_t i = 0; i < npkg; i++) {
        const struct tlck_package_summary *s = &pkg[i];
        fprintf(out, "package %s: %zu file(s) audited, %zu unreadable", s->path, s->n - s->unreadable, s->unreadable);
        if (s->runs_on)
            fprintf(out, "; symbol versions allow %s and newer", s->runs_on);
        if (s->claimed[0])
            fprintf(out, "; the file name claims %s", s->claimed);
        fputc('\n', out);
        const char *link = tlck_package_link_of(r, s->path);
        if (link)
            fprintf(out, "  given as %s, a link to this package: judged as this file, by its name\n", link);
        tlck_package_text_block(out, r, s);
    }
    tlck_package_text_table(out, r, pkg, npkg);
    size_t details = o->verbose ? 0 : hidden_details(r);
    if (details) /* a line of its own: the summary line keeps its form for the scripts that read it */
        put(out, &st, "%zu detail%s not shown (--verbose lists %s)", details, details == 1 ? "" : "s",
            details == 1 ? "it" : "them");
    /* the summary line, wrapped like the findings */
    char *sum = NULL;
    size_t sum_len = 0;
    FILE *m = open_memstream(&sum, &sum_len);
    if (m) {
        fprintf(m, "%zu file(s) checked: %zu error(s), %zu warning(s), %zu info, %zu suppressed, %zu unreadable",
                r->nfiles, r->counts[TLCK_SEV_ERROR], r->counts[TLCK_SEV_WARNING], r->counts[TLCK_SEV_INFO],
                r->suppressed, r->unreadable);
        if (r->packages_not_met)
            fprintf(m, "; %zu package%s", r->packages_not_met,
                    r->packages_not_met == 1 ? " does NOT meet the tag its name claims"
                                             : "s do NOT meet the tags their names claim");
        if (r->skipped_file_links)
            fprintf(m, "; did not follow %zu link%s to files", r->skipped_file_links,
                    r->skipped_file_links == 1 ? "" : "s");
        if (r->skipped_sdists)
            fprintf(m, "; skipped %zu source distribution%s (no built files)", r->skipped_sdists,
                    r->skipped_sdists == 1 ? "" : "s");
        if (r->skipped_probes)
            fprintf(m, "; skipped %zu CMake compiler-probe file%s", r->skipped_probes,
                    r->skipped_probes == 1 ? "" : "s");
        if (r->skipped_links)
            fprintf(m, "; did not follow %zu link%s to directories (--follow-symlinks)", r->skipped_links,
                    r->skipped_links == 1 ? "" : "s");
        if (fclose(m) == 0)
            tlck_text_put(out, sum, st.width);
    }
    free(sum);
    return 0;
}

/* The report is written whole into memory, then out through the escaping of control characters: a name from an
 * input never reaches the terminal or log raw, whichever line it is printed in. */
int tlck_report_text(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    int color = o->color < 0 ? isatty(fileno(out)) : o->color;
    struct style st = { color ? "\033[31m" : "", color ? "\033[33m" : "", color ? "\033[0m" : "",
                        tlck_text_width(out) };
    const char *colours[] = { st.red, st.yel, st.off };
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return -1;
    int rc = text_body(m, r, o, st);
    if (fclose(m) != 0) {
        free(text);
        return -1;
    }
    tlck_text_write_escaped(out, text, len, colours, 3);
    free(text);
    return rc;
}
