/* cuda-arch: which GPU architectures the device code covers, against the [cuda-arch] policy.
 *
 *   [cuda-arch]
 *   sass = sm_90, sm_100a     ; every fatbin container must carry a cubin for each (sm_90 is met by sm_90a too)
 *   require-ptx = true        ; every container must carry PTX, so newer GPUs can JIT it
 *
 * Checked per container (one per translation unit or device link), since one TU missing an arch is enough
 * for its kernels to fail on that GPU ("no kernel image is available for execution on the device").
 * --release also flags -G device-debug images (slow code, fatbin flag 0x2 or ptxas -g). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"

#define MAX_ARCHS 32

struct arch { unsigned sm; char suffix; };

static int parse_archs(const char *s, struct arch *v, size_t *n)
{
    *n = 0;
    while (s && *s) {
        while (*s == ' ' || *s == ',' || *s == '\t')
            s++;
        if (!*s)
            break;
        if (strncmp(s, "sm_", 3) == 0)
            s += 3;
        char *end;
        unsigned long sm = strtoul(s, &end, 10);
        if (end == s || *n >= MAX_ARCHS)
            return -1;
        v[*n] = (struct arch){ (unsigned)sm, *end == 'a' || *end == 'f' ? *end : 0 };
        s = end + (v[*n].suffix != 0);
        if (*s && *s != ',' && *s != ' ' && *s != '\t')
            return -1;
        (*n)++;
    }
    return 0;
}

static int same_container(const struct tlck_image *a, const struct tlck_image *b)
{
    return a->dev.container == b->dev.container &&
           (a->dev.section == b->dev.section ||
            (a->dev.section && b->dev.section && strcmp(a->dev.section, b->dev.section) == 0));
}

/* Does the container starting at images[i] (through j) satisfy arch r? A bare sm_90 is met by sm_90a/f too. */
static int container_has(const struct tlck_image *v, size_t i, size_t j, const struct arch *r)
{
    for (size_t k = i; k < j; k++)
        if (v[k].kind == TLCK_IMAGE_CUBIN && !v[k].dev.error && v[k].dev.sm == r->sm &&
            (!r->suffix || v[k].dev.arch_suffix == r->suffix))
            return 1;
    return 0;
}

static int container_has_ptx(const struct tlck_image *v, size_t i, size_t j)
{
    for (size_t k = i; k < j; k++)
        if (v[k].kind == TLCK_IMAGE_PTX)
            return 1;
    return 0;
}

/* Whether any image of the container holds a device function (a damaged one is assumed to). */
static int container_has_code(const struct tlck_image *v, size_t i, size_t j)
{
    for (size_t k = i; k < j; k++)
        if (v[k].nfuncs || v[k].dev.error)
            return 1;
    return 0;
}

static const char *container_name(const struct tlck_image *v, size_t i, size_t j, char *buf, size_t n)
{
    const char *kernel = NULL;
    for (size_t k = i; k < j && !kernel; k++)
        for (size_t m = 0; m < v[k].nfuncs && !kernel; m++)
            if (v[k].funcs[m].is_kernel)
                kernel = v[k].funcs[m].name;
    /* a standalone .cubin file is its own container, without a fatbin around it */
    if (!v[i].dev.section && v[i].label && strncmp(v[i].label, "cubin ", 6) == 0)
        snprintf(buf, n, "cubin%s%s%s", kernel ? " (kernel " : "", kernel ? kernel : "", kernel ? ")" : "");
    else
        snprintf(buf, n, "%s[%u]%s%s%s", v[i].dev.section && strcmp(v[i].dev.section, "__nv_relfatbin") == 0
                 ? "relfatbin" : "fatbin", v[i].dev.container, kernel ? " (kernel " : "", kernel ? kernel : "",
                 kernel ? ")" : "");
    return buf;
}

static void inventory(const struct tlck_file *f, struct tlck_findings *out)
{
    char sass[512] = "", ptx[512] = "", ptx_only[512] = "";
    size_t ls = 0, lp = 0, lo = 0;
    for (size_t i = 0; i < f->ndevices; i++) {
        const struct tlck_device_info *d = &f->devices[i].dev;
        if (d->error)
            continue;
        int seen = 0, has_sass = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !f->devices[k].dev.error && f->devices[k].kind == f->devices[i].kind &&
                   f->devices[k].dev.sm == d->sm && f->devices[k].dev.arch_suffix == d->arch_suffix;
        if (seen)
            continue;
        char a[32];
        snprintf(a, sizeof a, "%s_%u%s", d->is_virtual ? "compute" : "sm", d->sm,
                 d->arch_suffix ? (char[]){ d->arch_suffix, 0 } : "");
        if (!d->is_virtual) {
            if (ls < sizeof sass)
                ls += (size_t)snprintf(sass + ls, sizeof sass - ls, "%s%s", ls ? " " : "", a);
            continue;
        }
        if (lp < sizeof ptx)
            lp += (size_t)snprintf(ptx + lp, sizeof ptx - lp, "%s%s", lp ? " " : "", a);
        for (size_t k = 0; k < f->ndevices; k++)
            has_sass |= f->devices[k].kind == TLCK_IMAGE_CUBIN && f->devices[k].dev.sm == d->sm;
        if (!has_sass && lo < sizeof ptx_only)
            lo += (size_t)snprintf(ptx_only + lo, sizeof ptx_only - lo, "%s%s", lo ? " " : "", a);
    }
    tlck_emit(out, "cuda-arch", TLCK_SEV_INFO, f->display, NULL, NULL, "device archs: SASS %s; PTX %s; PTX-only %s",
            ls ? sass : "none", lp ? ptx : "none", lo ? ptx_only : "none");
}

static void required(const struct tlck_file *f, const struct arch *req, size_t nreq, int need_ptx,
                     enum tlck_severity sev, struct tlck_findings *out)
{
    const struct tlck_image *v = f->devices;
    size_t lacking[MAX_ARCHS + 1] = { 0 };
    for (size_t i = 0, j; i < f->ndevices; i = j) {
        for (j = i + 1; j < f->ndevices && same_container(&v[i], &v[j]); j++)
            ;
        if (v[i].dev.error && !v[i].dev.sm)
            continue; /* the "damaged" marker */
        if (!container_has_code(v, i, j))
            continue; /* nvlink's device-link container, a .cu of host code only: nothing to run on any GPU */
        char name[256], miss[512] = "";
        size_t lm = 0;
        for (size_t r = 0; r < nreq; r++)
            if (!container_has(v, i, j, &req[r])) {
                lacking[r]++;
                if (lm < sizeof miss)
                    lm += (size_t)snprintf(miss + lm, sizeof miss - lm, "%ssm_%u%s", lm ? " " : "", req[r].sm,
                                           req[r].suffix ? (char[]){ req[r].suffix, 0 } : "");
            }
        int no_ptx = need_ptx && !container_has_ptx(v, i, j);
        lacking[MAX_ARCHS] += no_ptx;
        if (lm || no_ptx) /* each container: the text report shortens long lists */
            tlck_emit(out, "cuda-arch", sev, f->display, NULL,
                    "add the missing targets with -gencode arch=compute_XX,code=[sm_XX,compute_XX]",
                    "%s lacks %s%s%s", container_name(v, i, j, name, sizeof name), lm ? "SASS for " : "",
                    lm ? miss : "", no_ptx ? (lm ? " and a PTX fallback" : "a PTX fallback") : "");
    }
}

static void release_debug(const struct tlck_file *f, struct tlck_findings *out)
{
    size_t n = 0;
    const char *first = NULL;
    for (size_t i = 0; i < f->ndevices; i++)
        if (f->devices[i].dev.is_debug && !f->devices[i].dev.error) {
            n++;
            if (!first)
                first = f->devices[i].label;
        }
    if (n)
        tlck_emit(out, "cuda-arch", TLCK_SEV_WARNING, f->display, NULL,
                "build release device code without -G (use -lineinfo for line tables)",
                "%zu device-debug (-G) image%s in a release audit, e.g. %s", n, n == 1 ? "" : "s", first);
}

/* [cuda-arch], read once per audit: the required SASS archs and whether PTX is required. */
struct policy {
    struct arch req[MAX_ARCHS];
    size_t nreq;
    int need_ptx;
};

/* A sass list that does not parse, or a require-ptx that is not yes/no, would switch the requirement off: it
 * stops the run before any input is read (exit 2), naming where the value was set. */
static int prepare(const struct tlck_policy *p, void **state, tl_error *err)
{
    *state = NULL;
    struct policy *pol = calloc(1, sizeof *pol);
    if (!pol)
        return tl_fail(err, "out of memory reading [cuda-arch]");
    const char *sass = tl_config_get(p->cfg, "cuda-arch", "sass");
    char where[1200];
    if (parse_archs(sass, pol->req, &pol->nreq) != 0) {
        tl_config_value_origin(p->cfg, "cuda-arch", "sass", sass, where, sizeof where);
        free(pol);
        return tl_fail(err, "%s: [cuda-arch] sass = '%s' is not a list of SM architectures; valid: e.g. sm_90, sm_100a "
                       "(at most %d)", where, sass, MAX_ARCHS);
    }
    pol->need_ptx = tl_config_bool_checked(p->cfg, "cuda-arch", "require-ptx", 0, err);
    if (pol->need_ptx < 0) {
        free(pol);
        return -1;
    }
    *state = pol;
    return 0;
}

static void release(void *state)
{
    free(state);
}

static void run(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out)
{
    const struct policy *pol = state;
    if (sev == TLCK_SEV_NONE || f->ndevices == 0)
        return;
    inventory(f, out);
    if (pol && (pol->nreq || pol->need_ptx))
        required(f, pol->req, pol->nreq, pol->need_ptx, sev, out);
    if (p->release)
        release_debug(f, out);
}

const struct tlck_check tlck_check_cuda_arch = {
    .id = "cuda-arch",
    .default_severity = TLCK_SEV_ERROR,
    .summary = "CUDA arch policy",
    .help_uri = "docs/checks/cuda-arch.md",
    .prepare = prepare,
    .release = release,
    .run = run,
};
