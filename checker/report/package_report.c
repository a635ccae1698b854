#include "report/package_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


/* "12.3 KiB": sizes people compare against a cap. */
static const char *human(char buf[32], uint64_t b)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB" };
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 3)
        v /= 1024, u++;
    if (u == 0)
        snprintf(buf, 32, "%" PRIu64 " B", b);
    else
        snprintf(buf, 32, "%.1f %s", v, unit[u]);
    return buf;
}

static uint64_t line_total(const struct tlck_member_facts *m)
{
    return m->host_debug + m->cubin_lines + m->ptx_lines;
}

static const char *member_name(const struct tlck_results *r, const struct tlck_member_facts *m)
{
    const struct tlck_file *f = &r->files[m->file];
    size_t n = strlen(f->path);
    return strncmp(f->display, f->path, n) == 0 && f->display[n] == '!' ? f->display + n + 1 : f->display;
}

const char *tlck_package_platform_text(const struct tlck_package_verdict *v, char *buf, size_t n)
{
    snprintf(buf, n, "the files satisfy %s_x86_64; the file name claims %s_x86_64: %s", v->satisfied, v->claimed,
             v->claim_met ? "met" : "NOT met");
    return buf;
}

const char *tlck_package_blacklist_text(const struct tlck_package_verdict *v, char *buf, size_t n)
{
    snprintf(buf, n, "%s imports %s from %s; auditwheel's blacklist rules out %s and every more compatible tag",
             v->bl_file, v->bl_symbols, v->bl_lib, v->bl_tag);
    return buf;
}

const char *tlck_package_device_text(const struct tlck_package_verdict *v, char *buf, size_t n)
{
    const struct tlck_member_facts *t = &v->total;
    snprintf(buf, n, "kernels with line rows: %zu of %zu (in %u of %u cubins with line info; %u of %u PTX with .loc); "
                     "SASS %s; PTX %s; cuda-arch: %zu finding(s) at warning or above",
             t->kernels_with_lines, t->kernels, t->cubins_with_lines, t->cubins, t->ptx_with_lines, t->ptx,
             v->sass[0] ? v->sass : "none", v->ptx[0] ? v->ptx : "none", v->arch_findings);
    return buf;
}

const char *tlck_package_line_info_text(const struct tlck_member_facts *t, char *buf, size_t n)
{
    char a[32], b[32], c[32], d[32], e[32], g[32];
    snprintf(buf, n, "%s (host .debug_* %s, of it .debug_line %s; cubin line sections %s; PTX .loc %s; device line "
                     "info stored in the package ~%s)",
             human(a, line_total(t)), human(b, t->host_debug), human(c, t->host_debug_line), human(d, t->cubin_lines),
             human(e, t->ptx_lines), human(g, t->device_lines_stored));
    return buf;
}

static uint64_t split_total(const struct tlck_member_facts *m)
{
    return m->split_host_debug + m->split_device_stored;
}

const char *tlck_package_split_text(const struct tlck_member_facts *t, char *buf, size_t n)
{
    if (!t->split_host_debug && !t->split_host_missing && !t->split_images)
        return NULL;
    char a[32], b[32], c[32], d[32], e[32], host[160] = "", dev[160] = "", missing[200] = "";
    if (t->split_host_debug)
        snprintf(host, sizeof host, "host .debug_* %s, of it .debug_line %s, in separate debug files",
                 human(b, t->split_host_debug), human(c, t->split_host_debug_line));
    if (t->split_images)
        snprintf(dev, sizeof dev, "device line sections %s (~%s as stored) of %u split cubin(s)",
                 human(d, t->split_device_lines), human(e, t->split_device_stored), t->split_images);
    /* what was split out but not found has no size to add: the figure leaves it out and says so */
    if (t->split_host_missing || t->split_images_missing)
        snprintf(missing, sizeof missing, "not counted (store not given, or no part in it): host line info of %u "
                                          "file(s), line info of %u cubin(s)",
                 t->split_host_missing, t->split_images_missing);
    snprintf(buf, n, "%s (%s%s%s%s%s)", human(a, split_total(t)), host, host[0] && dev[0] ? "; " : "", dev,
             (host[0] || dev[0]) && missing[0] ? "; " : "", missing);
    return buf;
}

void tlck_package_text_block(FILE *out, const struct tlck_results *r, const struct tlck_package_summary *s)
{
    const struct tlck_package_verdict *v = &s->verdict;
    const struct tlck_member_facts *t = &v->total;
    char a[32], b[32], c[32], line[TLCK_VERDICT_TEXT_MAX];
    if (v->platform_judged) {
        fprintf(out, "  platform: %s\n", tlck_package_platform_text(v, line, sizeof line));
        if (v->claim_reason[0])
            fprintf(out, "    why not %s: %s\n", v->claimed, v->claim_reason);
        if (v->reason[0] && strcmp(v->reason, v->claim_reason) != 0) /* the tag next to the answer, when it differs */
            fprintf(out, "    why not more compatible: %s\n", v->reason);
        if (v->bl_tag[0])
            fprintf(out, "    blacklisted symbols: %s\n", tlck_package_blacklist_text(v, line, sizeof line));
    }
    if (t->cubins || t->ptx)
        fprintf(out, "  device: %s\n", tlck_package_device_text(v, line, sizeof line));
    fprintf(out, "  std:: exports: %zu\n", t->std_exports);
    fprintf(out, "  line info: %s\n", tlck_package_line_info_text(t, line, sizeof line));
    if (tlck_package_split_text(t, line, sizeof line))
        fprintf(out, "  line info split out (saved, in the debug store): %s\n", line);
    int w = 4;
    for (size_t i = 0; i < v->nm; i++) {
        size_t len = strlen(member_name(r, &v->m[i]));
        w = len > (size_t)w ? (len > 100 ? 100 : (int)len) : w;
    }
    if (v->nm)
        fprintf(out, "  %-*s %15s %11s %9s %7s %11s %11s %11s\n", w, "file", "kernels+lines", "cubins+li", "PTX+loc",
                "std::", ".debug_*", "dev.lines", "line info");
    size_t empty = 0;
    for (size_t i = 0; i < v->nm; i++) {
        const struct tlck_member_facts *m = &v->m[i];
        char k[32], cb[32], px[32];
        if (!m->cubins && !m->ptx && !m->std_exports && !line_total(m)) {
            empty++; /* a row of zeros says nothing: counted below */
            continue;
        }
        snprintf(k, sizeof k, "%zu/%zu", m->kernels_with_lines, m->kernels);
        snprintf(cb, sizeof cb, "%u/%u", m->cubins_with_lines, m->cubins);
        snprintf(px, sizeof px, "%u/%u", m->ptx_with_lines, m->ptx);
        fprintf(out, "  %-*s %15s %11s %9s %7zu %11s %11s %11s\n", w, member_name(r, m), k, cb, px, m->std_exports,
                human(a, m->host_debug), human(b, m->cubin_lines + m->ptx_lines), human(c, line_total(m)));
    }
    if (empty)
        fprintf(out, "  %s %zu member%s with no device code, std:: exports or line info\n", empty < v->nm ? "and" : "all",
                empty, empty == 1 ? "" : "s");
}

static const char *package_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

void tlck_package_text_table(FILE *out, const struct tlck_results *r, const struct tlck_package_summary *pkg, size_t n)
{
    if (!n)
        return;
    int w = 7;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(package_name(pkg[i].path));
        w = len > (size_t)w ? (len > 120 ? 120 : (int)len) : w;
    }
    fprintf(out, "package summary:\n  %-*s %-16s %-16s %-7s %15s %7s %9s %11s\n", w, "package", "satisfies", "claims",
            "claim", "kernels+lines", "std::", "cuda-arch", "line info");
    for (size_t i = 0; i < n; i++) {
        const struct tlck_package_verdict *v = &pkg[i].verdict;
        char k[48], a[32];
        snprintf(k, sizeof k, "%zu/%zu", v->total.kernels_with_lines, v->total.kernels);
        int j = v->platform_judged;
        fprintf(out, "  %-*s %-16s %-16s %-7s %15s %7zu %9zu %11s\n", w, package_name(pkg[i].path),
                j ? v->satisfied : "-", j ? v->claimed : "-", !j ? "-" : v->claim_met ? "met" : "NOT met", k,
                v->total.std_exports, v->arch_findings, human(a, line_total(&v->total)));
    }
}

static void json_facts(struct tlck_jw *w, const struct tlck_member_facts *m)
{
    tlck_jw_uint(w, "kernels", m->kernels);
    tlck_jw_uint(w, "kernels_with_lines", m->kernels_with_lines);
    tlck_jw_uint(w, "cubins", m->cubins);
    tlck_jw_uint(w, "cubins_with_lines", m->cubins_with_lines);
    tlck_jw_uint(w, "ptx", m->ptx);
    tlck_jw_uint(w, "ptx_with_lines", m->ptx_with_lines);
    tlck_jw_uint(w, "std_exports", m->std_exports);
    tlck_jw_object(w, "line_info_bytes");
    tlck_jw_uint(w, "host_debug", m->host_debug);
    tlck_jw_uint(w, "host_debug_line", m->host_debug_line);
    tlck_jw_uint(w, "cubin", m->cubin_lines);
    tlck_jw_uint(w, "ptx_loc", m->ptx_lines);
    tlck_jw_uint(w, "device_stored_estimate", m->device_lines_stored);
    tlck_jw_uint(w, "total", line_total(m));
    tlck_jw_end(w);
    /* what a split took out (and the debug store holds): the bytes the shipped member saved */
    tlck_jw_object(w, "split_out_bytes");
    tlck_jw_uint(w, "host_debug", m->split_host_debug);
    tlck_jw_uint(w, "host_debug_line", m->split_host_debug_line);
    tlck_jw_uint(w, "cubin", m->split_device_lines);
    tlck_jw_uint(w, "cubin_stored_estimate", m->split_device_stored);
    tlck_jw_uint(w, "total", split_total(m));
    tlck_jw_uint(w, "split_cubins", m->split_images);
    tlck_jw_uint(w, "split_cubins_not_found", m->split_images_missing);
    tlck_jw_uint(w, "host_files_not_found", m->split_host_missing);
    tlck_jw_end(w);
}

void tlck_package_json_verdict(struct tlck_jw *w, const struct tlck_results *r, const struct tlck_package_summary *s)
{
    const struct tlck_package_verdict *v = &s->verdict;
    tlck_jw_object(w, "verdict");
    tlck_jw_object(w, "platform");
    if (v->platform_judged) {
        tlck_jw_str(w, "satisfied", v->satisfied);
        tlck_jw_str(w, "claimed", v->claimed);
        tlck_jw_bool(w, "claim_met", v->claim_met);
        tlck_jw_str(w, "reason", v->reason[0] ? v->reason : NULL);
        tlck_jw_str(w, "claim_reason", v->claim_reason[0] ? v->claim_reason : NULL);
        if (v->bl_tag[0]) {
            tlck_jw_object(w, "blacklisted");
            tlck_jw_str(w, "tag", v->bl_tag);
            tlck_jw_str(w, "file", v->bl_file);
            tlck_jw_str(w, "library", v->bl_lib);
            tlck_jw_array(w, "symbols"); /* complete: the text's bl_symbols stops at what fits a line */
            if (v->bl_nall)
                for (size_t i = 0; i < v->bl_nall; i++)
                    tlck_jw_str(w, NULL, v->bl_all[i]);
            else
                tlck_jw_str(w, NULL, v->bl_symbols); /* "*": the tag blacklists the library as a whole */
            tlck_jw_end(w);
            tlck_jw_end(w);
        } else {
            tlck_jw_null(w, "blacklisted");
        }
    }
    tlck_jw_end(w);
    tlck_jw_object(w, "archs");
    tlck_jw_str(w, "sass", v->sass);
    tlck_jw_str(w, "ptx", v->ptx);
    tlck_jw_uint(w, "cuda_arch_findings", v->arch_findings);
    tlck_jw_end(w);
    tlck_jw_object(w, "total");
    json_facts(w, &v->total);
    tlck_jw_end(w);
    tlck_jw_array(w, "files");
    for (size_t i = 0; i < v->nm; i++) {
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "path", r->files[v->m[i].file].display);
        json_facts(w, &v->m[i]);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
    tlck_jw_end(w);
}

void tlck_package_sarif_properties(struct tlck_jw *w, const struct tlck_results *r)
{
    size_t n = r->npackages;
    const struct tlck_package_summary *pkg = r->packages;
    if (n) {
        tlck_jw_break(w, "\n  ");
        tlck_jw_object(w, "properties");
        tlck_jw_array(w, "trueline-packages");
        for (size_t i = 0; i < n; i++) {
            tlck_jw_object(w, NULL);
            tlck_jw_str(w, "path", pkg[i].path);
            tlck_package_json_verdict(w, r, &pkg[i]);
            tlck_jw_end(w);
        }
        tlck_jw_end(w);
        tlck_jw_end(w);
    }
}
