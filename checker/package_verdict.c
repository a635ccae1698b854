#include "package_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/host_util.h"
#include "checks/stl_symbols.h"
#include "platform_blacklist.h"
#include "platform_table.h"

#define EM_X86_64_ 62
#define MAX_SM 256

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The member's path inside its package: "numpy/_core/x.so" of "pkg.whl!numpy/_core/x.so". */
static const char *member_name(const struct tlck_file *f)
{
    size_t n = strlen(f->path);
    return strncmp(f->display, f->path, n) == 0 && f->display[n] == '!' ? f->display + n + 1 : f->display;
}

/* stl-leak's sense of exported: a definition others can bind to that is the file's own (not copy-relocated). */
static int exported(const struct tlck_symbol *s)
{
    return s->defined && s->shndx != 0 && !s->version_file && (s->visibility == 0 || s->visibility == 3) &&
           (s->bind == 1 || s->bind == 2 || s->bind == 10 /* STB_GNU_UNIQUE */);
}

static void member_facts(const struct tlck_file *f, struct tlck_member_facts *m, unsigned char sass[][3],
                         unsigned char ptx[][3])
{
    m->host_debug = f->debug_bytes;
    m->host_debug_line = f->debug_line_bytes;
    m->split_host_debug = f->split_debug_bytes;
    m->split_host_debug_line = f->split_debug_line_bytes;
    m->split_host_missing = f->split_build_id != NULL;
    for (size_t i = 0; i < f->ndevices; i++) {
        const struct tlck_image *img = &f->devices[i];
        const struct tlck_device_info *d = &img->dev;
        int suffix = d->arch_suffix == 'a' ? 1 : d->arch_suffix == 'f' ? 2 : 0;
        if (d->sm < MAX_SM)
            (img->kind == TLCK_IMAGE_PTX ? ptx : sass)[d->sm][suffix] = 1;
        if (d->size)
            m->device_lines_stored += (uint64_t)((double)d->line_bytes * (double)d->stored_size / (double)d->size);
        if (img->kind == TLCK_IMAGE_CUBIN && d->lines_split && !d->error) {
            m->split_images++;
            m->split_images_missing += !d->line_store;
            m->split_device_lines += d->split_line_bytes;
            if (d->size) /* the store part's lines, compressed as the shipped image is (an estimate) */
                m->split_device_stored +=
                    (uint64_t)((double)d->split_line_bytes * (double)d->stored_size / (double)d->size);
        }
        /* images are counted as line-tables counts them: those with device code (a host-only .cu's image and
         * the device link's container have none for line rows to describe), so the report has one denominator */
        if (img->nfuncs == 0 || img->dev.error)
            continue;
        if (img->kind == TLCK_IMAGE_PTX) {
            m->ptx++;
            m->ptx_with_lines += d->has_lineinfo;
            m->ptx_lines += d->line_bytes;
            continue;
        }
        m->cubins++;
        m->cubins_with_lines += d->has_lineinfo;
        m->cubin_lines += d->line_bytes;
        for (size_t k = 0; k < img->nfuncs; k++)
            if (img->funcs[k].is_kernel) {
                m->kernels++;
                m->kernels_with_lines += img->funcs[k].has_lines;
            }
    }
    if (f->is_libstdcxx || f->elf_type == 1 /* ET_REL: no dynamic exports */)
        return;
    for (size_t i = 0; i < f->ndynsyms; i++) {
        const struct tlck_symbol *s = &f->dynsyms[i];
        struct tlck_cxx_name cx;
        if (exported(s) && s->name && tlck_stl_origin(s->name, s->bind, &cx) != TLCK_STL_NONE)
            m->std_exports++;
    }
}

static void add_facts(struct tlck_member_facts *t, const struct tlck_member_facts *m)
{
    t->cubins += m->cubins, t->cubins_with_lines += m->cubins_with_lines;
    t->ptx += m->ptx, t->ptx_with_lines += m->ptx_with_lines;
    t->kernels += m->kernels, t->kernels_with_lines += m->kernels_with_lines;
    t->std_exports += m->std_exports;
    t->host_debug += m->host_debug, t->host_debug_line += m->host_debug_line;
    t->cubin_lines += m->cubin_lines, t->ptx_lines += m->ptx_lines;
    t->device_lines_stored += m->device_lines_stored;
    t->split_host_debug += m->split_host_debug, t->split_host_debug_line += m->split_host_debug_line;
    t->split_device_lines += m->split_device_lines, t->split_device_stored += m->split_device_stored;
    t->split_host_missing += m->split_host_missing;
    t->split_images += m->split_images, t->split_images_missing += m->split_images_missing;
}

static void arch_list(char *buf, size_t n, unsigned char set[][3], const char *prefix)
{
    size_t used = 0;
    buf[0] = 0;
    for (unsigned sm = 0; sm < MAX_SM; sm++)
        for (int s = 0; s < 3; s++)
            if (set[sm][s]) {
                int w = snprintf(buf + used, n - used, "%s%s%u%s", used ? " " : "", prefix, sm, s == 1 ? "a" : s == 2 ? "f" : "");
                if (w < 0 || (size_t)w >= n - used)
                    return;
                used += (size_t)w;
            }
}

/* ---- platform tag ---- */

struct judge {
    const struct tlck_results *r;
    size_t first, n;
    const struct tlck_blacklist *bl; /* symbol-versions' copy of conf/platform_blacklist.tsv */
    const struct tlck_platforms *t;  /* the platform tables; NULL when platform_libs.tsv was not found */
};

/* Whether a member of the package needs (DT_NEEDED) a library of name. */
static int needed_by_member(const struct judge *j, const char *name)
{
    for (size_t k = j->first; k < j->first + j->n; k++)
        for (size_t i = 0; !j->r->files[k].error && i < j->r->files[k].nneeded; i++)
            if (strcmp(j->r->files[k].needed[i], name) == 0)
                return 1;
    return 0;
}

/* The first member that breaks row's blacklist, and how, into *hit; NULL when none does. auditwheel tests the
 * extension modules and every other member no member needs by its file name (a vendored library is not). */
static const struct tlck_file *blacklisted(const struct judge *j, const struct tlck_platform *row,
                                           struct tlck_blacklist_hit *hit)
{
    for (size_t k = j->first; k < j->first + j->n; k++) {
        const struct tlck_file *f = &j->r->files[k];
        if (tlck_blacklist_hit(j->bl, row->tag, f, hit) &&
            (tlck_python_extension(f) || !needed_by_member(j, base_name(member_name(f)))))
            return f;
    }
    return NULL;
}

/* Whether a library a member needs is in the package itself (auditwheel finds those through the RPATH). */
static int vendored(const struct judge *j, const char *lib)
{
    for (size_t k = j->first; k < j->first + j->n; k++) {
        const struct tlck_file *f = &j->r->files[k];
        if (strcmp(base_name(member_name(f)), lib) == 0 || (f->soname && strcmp(f->soname, lib) == 0))
            return 1;
    }
    return 0;
}

/* The first reason row does not hold the package's files, into why; 0 when it does. by_blacklist: auditwheel's
 * blacklist rules the row out (judge_platform decides it for every row at once). */
static int violation(const struct judge *j, const struct tlck_platform *row, int by_blacklist, char *why, size_t n)
{
    for (size_t k = j->first; k < j->first + j->n; k++) {
        const struct tlck_file *f = &j->r->files[k];
        if (f->error)
            continue;
        for (size_t i = 0; i < f->nneeded; i++)
            if (!tlck_platform_allows_lib(row, f->needed[i]) && !vendored(j, f->needed[i])) {
                snprintf(why, n, "%s needs %s, which the package does not ship and %s does not allow", member_name(f),
                         f->needed[i], row->tag);
                return 1;
            }
        for (size_t i = 0; f->elf_type != 1 && i < f->ndynsyms; i++) {
            const struct tlck_symbol *s = &f->dynsyms[i];
            for (int p = 0; p < TLCK_NVER && !s->defined && s->version; p++) {
                size_t pl = strlen(tlck_version_prefixes[p]);
                if (!row->max[p][0] || strncmp(s->version, tlck_version_prefixes[p], pl) != 0)
                    continue;
                int c = tlck_version_cmp(s->version + pl, row->max[p]);
                if (c == 1) {
                    char *dem = tlck_demangle(s->name); /* the verdict names symbols as people read them */
                    snprintf(why, n, "%s needs %s (%s@%s), above %s's %s%s", member_name(f), s->version,
                             dem ? dem : s->name, s->version, row->tag, tlck_version_prefixes[p], row->max[p]);
                    free(dem);
                    return 1;
                }
            }
        }
    }
    struct tlck_blacklist_hit hit;
    const struct tlck_file *f = by_blacklist ? blacklisted(j, row, &hit) : NULL;
    if (f) {
        if (hit.count)
            snprintf(why, n, "%s imports %s from %s, which %s blacklists", member_name(f), hit.symbol, hit.lib,
                     row->tag);
        else
            snprintf(why, n, "%s needs %s, which %s blacklists as a whole", member_name(f), hit.lib, row->tag);
        return 1;
    }
    return 0;
}

/* A legacy name (manylinux2014: no "linux_" in it) is the first row with the same facts (manylinux_2_17). Tags
 * of the PEP 600 form are themselves even when their facts are alike (musllinux_1_1 and _1_2 differ in musl). */
static size_t canonical(const struct tlck_platforms *t, size_t i)
{
    for (size_t k = 0; !strstr(t->v[i].tag, "linux_") && k < i; k++)
        if (strcmp(t->v[k].libs, t->v[i].libs) == 0 && memcmp(t->v[k].max, t->v[i].max, sizeof t->v[i].max) == 0)
            return k;
    return i;
}

/* The most compatible x86_64 tag of the wheel's file name found in the table ("...-manylinux_2_27_x86_64.
 * manylinux_2_28_x86_64.whl" -> manylinux_2_27); SIZE_MAX when none. */
static size_t claimed_row(const struct tlck_platforms *t, const char *path)
{
    const char *b = base_name(path), *end = b + strlen(b);
    if (end - b < 5 || strcmp(end - 4, ".whl") != 0)
        return SIZE_MAX;
    end -= 4;
    const char *plat = end;
    while (plat > b && plat[-1] != '-')
        plat--;
    size_t best = SIZE_MAX;
    static const char arch[] = "_x86_64";
    for (const char *s = plat; s < end;) {
        const char *e = memchr(s, '.', (size_t)(end - s));
        e = e ? e : end;
        size_t len = (size_t)(e - s), al = sizeof arch - 1;
        if (len > al && len - al < 64 && strncmp(e - al, arch, al) == 0) {
            char tag[64];
            memcpy(tag, s, len - al);
            tag[len - al] = 0;
            const struct tlck_platform *row = tlck_platform_find(t, tag);
            size_t i = row ? canonical(t, (size_t)(row - t->v)) : SIZE_MAX;
            best = i < best ? i : best;
        }
        s = e + 1;
    }
    return best;
}

static int links_musl(const struct judge *j)
{
    for (size_t k = j->first; k < j->first + j->n; k++)
        for (size_t i = 0; !j->r->files[k].error && i < j->r->files[k].nneeded; i++)
            if (strncmp(j->r->files[k].needed[i], "libc.musl-", 10) == 0)
                return 1;
    return 0;
}

/* 1 when the package is a wheel of x86_64 files and there is no platform table to judge it by. */
static int judge_platform(const struct judge *j, struct tlck_package_verdict *v)
{
    const char *path = j->r->files[j->first].path;
    size_t elf = 0;
    for (size_t k = j->first; k < j->first + j->n; k++) {
        const struct tlck_file *f = &j->r->files[k];
        if (!f->error && f->elf_type && f->machine != EM_X86_64_)
            return 0; /* the tables are x86_64's */
        elf += !f->error && f->elf_type;
    }
    if (!elf)
        return 0; /* no file read: nothing to judge */
    if (!j->t) {
        size_t len = strlen(path);
        return len > 4 && strcmp(path + len - 4, ".whl") == 0;
    }
    const struct tlck_platforms t = *j->t;
    size_t claim = claimed_row(&t, path);
    if (claim == SIZE_MAX)
        return 0;
    v->platform_judged = 1;
    /* the family is the C library the files link, as auditwheel decides it; a claim of the other family fails */
    const char *fam = links_musl(j) ? "musllinux" : "manylinux";
    int same_family = strncmp(t.v[claim].tag, fam, strlen(fam)) == 0;
    snprintf(v->family, sizeof v->family, "%s", fam);
    snprintf(v->claimed, sizeof v->claimed, "%s", t.v[claim].tag);
    snprintf(v->satisfied, sizeof v->satisfied, "linux");
    char why[512] = "";
    size_t fl = strlen(fam);
    /* musl versions no symbol: which musl the files need cannot be told from them, so a musllinux verdict
     * starts at the claimed tag (as auditwheel judges only the one musllinux tag it is given) */
    size_t start = same_family && strcmp(fam, "musllinux") == 0 ? claim : 0;
    /* auditwheel's blacklist policy is the most compatible tag whose blacklist no extension module breaks; every
     * more compatible tag is ruled out by it, every less compatible one is not (whatever its own blacklist) */
    size_t floor = t.n;
    for (size_t i = start; i < t.n && floor == t.n; i++) {
        struct tlck_blacklist_hit hit;
        const struct tlck_platform *row = &t.v[i];
        if (strncmp(row->tag, fam, fl) != 0 || row->tag[fl] != '_' || canonical(&t, i) != i)
            continue;
        const struct tlck_file *f = blacklisted(j, row, &hit);
        if (!f) {
            floor = i;
            break;
        }
        snprintf(v->bl_tag, sizeof v->bl_tag, "%s", row->tag);
        snprintf(v->bl_file, sizeof v->bl_file, "%s", member_name(f));
        snprintf(v->bl_lib, sizeof v->bl_lib, "%s", hit.lib);
        snprintf(v->bl_symbols, sizeof v->bl_symbols, "%s", hit.names);
        free(v->bl_all);
        v->bl_all = tlck_blacklist_names(j->bl, row->tag, f, hit.lib, &v->bl_nall);
    }
    for (size_t i = start; i < t.n; i++) {
        const struct tlck_platform *row = &t.v[i];
        if (strncmp(row->tag, fam, fl) != 0 || row->tag[fl] != '_' || canonical(&t, i) != i)
            continue;
        char w[512];
        if (!violation(j, row, i < floor, w, sizeof w)) {
            snprintf(v->satisfied, sizeof v->satisfied, "%s", row->tag);
            v->claim_met = same_family && i <= claim;
            break;
        }
        memcpy(why, w, sizeof why); /* the reason of the last tag ruled out: the one next to the answer */
    }
    snprintf(v->reason, sizeof v->reason, "%s", why);
    /* a claim not met is explained against the claimed tag itself, as auditwheel words it */
    if (!v->claim_met && same_family && !violation(j, &t.v[claim], claim < floor, v->claim_reason,
                                                   sizeof v->claim_reason))
        v->claim_reason[0] = 0;
    else if (!v->claim_met && !same_family)
        snprintf(v->claim_reason, sizeof v->claim_reason, "the files link the C library of %s, not of %s", fam,
                 t.v[claim].tag);
    return 0;
}

int tlck_package_verdict(const struct tlck_results *r, const struct tlck_package_tables *t, size_t first, size_t n,
                         struct tlck_package_verdict *v)
{
    memset(v, 0, sizeof *v);
    unsigned char (*sass)[3] = calloc(MAX_SM, sizeof *sass), (*ptx)[3] = calloc(MAX_SM, sizeof *ptx);
    v->m = calloc(n ? n : 1, sizeof *v->m);
    if (!sass || !ptx || !v->m) {
        free(sass), free(ptx), free(v->m);
        v->m = NULL;
        return 0;
    }
    for (size_t k = first; k < first + n; k++) {
        const struct tlck_file *f = &r->files[k];
        for (size_t i = 0; i < r->findings[k].n; i++) {
            const struct tlck_finding *x = &r->findings[k].v[i];
            v->arch_findings += !x->suppressed && x->severity >= TLCK_SEV_WARNING && strcmp(x->check, "cuda-arch") == 0;
        }
        if (f->error || (!f->elf_type && !f->ndevices))
            continue;
        struct tlck_member_facts *m = &v->m[v->nm++];
        m->file = k;
        member_facts(f, m, sass, ptx);
        add_facts(&v->total, m);
    }
    arch_list(v->sass, sizeof v->sass, sass, "sm_");
    arch_list(v->ptx, sizeof v->ptx, ptx, "compute_");
    free(sass);
    free(ptx);
    struct judge j = { r, first, n, t->blacklist, t->platforms };
    return judge_platform(&j, v);
}

void tlck_package_verdict_free(struct tlck_package_verdict *v)
{
    free(v->m);
    free(v->bl_all);
    memset(v, 0, sizeof *v);
}
