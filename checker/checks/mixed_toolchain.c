/* mixed-toolchain (host part): compilers named by DW_AT_producer (per compile unit) and by .comment.
 * Several versions in one artifact: error across major versions (or across compiler families), warning for
 * different minor/patch versions, nothing for one version.
 *
 * .comment of every linked file also carries the GCC that built the C library's start files (crti.o, crtn.o:
 * "GCC: (Debian 12.2.0-14) 12.2.0" even in a clang-built binary), so .comment alone never gives an error. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/device_checks.h"
#include "checks/host_util.h"

struct compiler {
    char family[16];  /* "GCC", "clang", "other" */
    char version[32]; /* "12.2.0" */
    unsigned major;
    char cus[256];    /* some CU names that were built by it */
    size_t ncus;
};

/* "GNU C++17 12.2.0 -mtune=generic ...", "Debian clang version 14.0.6", "GCC: (GNU) 8.5.0 20210514 (Red Hat
 * 8.5.0-4)", "clang version 14.0.6 (https://...)". Returns -1 for assemblers and unknown producers. */
static int parse_producer(const char *p, struct compiler *c)
{
    memset(c, 0, sizeof *c);
    const char *v = NULL;
    if (strncmp(p, "GNU AS", 6) == 0 || strstr(p, "assembler"))
        return -1;
    const char *clang = strstr(p, "clang version ");
    if (clang) {
        snprintf(c->family, sizeof c->family, "clang");
        v = clang + 14;
    } else if (strncmp(p, "GNU ", 4) == 0 || strncmp(p, "GCC: ", 5) == 0) {
        snprintf(c->family, sizeof c->family, "GCC");
        const char *q = p;
        if (strncmp(p, "GCC: ", 5) == 0 && (q = strchr(p, ')')) != NULL)
            q++;
        else
            q = p + 4;
        while (*q && !(isdigit((unsigned char)*q) && (q == p || q[-1] == ' ')))
            q++;
        /* skip language standard tokens such as "C++17" / "C17": they follow a letter, not a space */
        v = *q ? q : NULL;
    } else {
        return -1;
    }
    if (!v || !isdigit((unsigned char)*v))
        return -1;
    size_t n = strspn(v, "0123456789.");
    snprintf(c->version, sizeof c->version, "%.*s", (int)(n < 31 ? n : 31), v);
    c->major = (unsigned)strtoul(v, NULL, 10);
    return 0;
}

static struct compiler *add(struct compiler *v, size_t *n, size_t cap, const struct compiler *c, const char *cu)
{
    size_t i;
    for (i = 0; i < *n; i++)
        if (strcmp(v[i].family, c->family) == 0 && strcmp(v[i].version, c->version) == 0)
            break;
    if (i == *n) {
        if (*n == cap)
            return NULL;
        v[(*n)++] = *c;
    }
    if (cu && v[i].ncus++ < 4) {
        size_t used = strlen(v[i].cus);
        snprintf(v[i].cus + used, sizeof v[i].cus - used, "%s%s", used ? ", " : "", cu);
    }
    return &v[i];
}

static void describe(char *buf, size_t n, const struct compiler *v, size_t nv)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < nv && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s %s", i ? "; " : "", v[i].family, v[i].version);
        used += w > 0 ? (size_t)w : 0;
        if (v[i].ncus && used < n) {
            w = snprintf(buf + used, n - used, " (%zu CU%s: %s%s)", v[i].ncus, v[i].ncus > 1 ? "s" : "", v[i].cus,
                         v[i].ncus > 4 ? ", ..." : "");
            used += w > 0 ? (size_t)w : 0;
        }
    }
}

static enum tlck_severity verdict(const struct compiler *v, size_t nv, enum tlck_severity sev)
{
    if (nv < 2)
        return TLCK_SEV_NONE;
    for (size_t i = 1; i < nv; i++)
        if (strcmp(v[i].family, v[0].family) != 0 || v[i].major != v[0].major)
            return sev;
    return sev == TLCK_SEV_ERROR ? TLCK_SEV_WARNING : sev;
}

void tlck_mixed_toolchain_host(const struct tlck_file *f, enum tlck_severity sev, struct tlck_findings *out)
{
    struct compiler dw[32], cm[32], c;
    size_t ndw = 0, ncm = 0;
    for (size_t i = 0; i < f->host.ncus; i++)
        if (f->host.cus[i].producer && parse_producer(f->host.cus[i].producer, &c) == 0)
            add(dw, &ndw, 32, &c, f->host.cus[i].name ? f->host.cus[i].name : "?");
    for (size_t i = 0; i < f->ncomments; i++)
        if (parse_producer(f->comments[i], &c) == 0)
            add(cm, &ncm, 32, &c, NULL);
    char desc[2048];
    const char *hint = "build every translation unit of an artifact with one compiler version (check the build "
                       "cache and prebuilt objects linked in)";
    enum tlck_severity s = verdict(dw, ndw, sev);
    if (s != TLCK_SEV_NONE) {
        describe(desc, sizeof desc, dw, ndw);
        tlck_emit(out, "mixed-toolchain", s, f->display, NULL, hint, "%zu compiler versions in DW_AT_producer: %s", ndw,
                desc);
    }
    s = verdict(cm, ncm, sev);
    if (ndw == 0 && s != TLCK_SEV_NONE) {
        describe(desc, sizeof desc, cm, ncm);
        tlck_emit(out, "mixed-toolchain", f->elf_type == 1 ? s : TLCK_SEV_INFO, f->display, NULL, hint,
                "%zu compiler versions in .comment: %s%s", ncm, desc,
                f->elf_type == 1 ? "" : " (linked files also carry the C library's start-file compiler)");
    }
    if (ndw == 0 && ncm == 0 && f->ncomments > 1)
        return;
    /* several builds of one version (e.g. two GCC 8.5.0 vendor builds in .comment): informational */
    if (ncm == 1 && f->ncomments > 1) {
        size_t gcc = 0;
        for (size_t i = 0; i < f->ncomments; i++)
            gcc += parse_producer(f->comments[i], &c) == 0;
        if (gcc > 1)
            tlck_emit(out, "mixed-toolchain", TLCK_SEV_INFO, f->display, NULL, NULL,
                    ".comment names %zu builds of %s %s: %s | %s", gcc, cm[0].family, cm[0].version, f->comments[0],
                    f->comments[1]);
    }
}

static void run(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out)
{
    (void)p;
    tlck_mixed_toolchain_host(f, sev, out);
    tlck_mixed_toolchain_device(f, sev, out);
}

const struct tlck_check tlck_check_mixed_toolchain = {
    .id = "mixed-toolchain",
    .default_severity = TLCK_SEV_ERROR,
    .summary = "several compilers",
    .help_uri = "docs/checks/mixed-toolchain.md",
    .run = run,
};
