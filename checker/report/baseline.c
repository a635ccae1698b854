/* Baseline: the fingerprints of a previous JSON report (the "fingerprint" members of its findings). Our own
 * output is the only producer, so the scan looks for that member rather than parsing arbitrary JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_write.h"
#include "report/suppress.h"
#include "trueline/elf_file.h"

static int cmp_fp(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

int tlck_baseline_apply(struct tlck_results *r, const char *path)
{
    const unsigned char *data;
    size_t size;
    void *map;
    size_t map_len;
    tl_error err;
    if (tl_map_file(path, &data, &size, &map, &map_len, &err) != 0) {
        fprintf(stderr, "trueline-check: %s: cannot read baseline: %s\n", path, err.msg);
        return -1;
    }
    static const char key[] = "\"fingerprint\": \"";
    char (*fps)[32] = NULL;
    size_t n = 0, cap = 0;
    const unsigned char *p = data, *end = data + size;
    while ((p = memmem(p, (size_t)(end - p), key, sizeof key - 1)) != NULL) {
        p += sizeof key - 1;
        if (end - p < 32)
            break;
        if (tlck_grow((void **)&fps, &cap, n + 1, sizeof *fps) != 0)
            break;
        memcpy(fps[n++], p, 32);
    }
    tl_unmap_file(map, map_len);
    qsort(fps, n, sizeof *fps, cmp_fp);
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->findings[i].n; k++) {
            struct tlck_finding *x = &r->findings[i].v[k];
            char fp[33], old[33];
            tlck_finding_fingerprint(x, fp);
            if (n && bsearch(fp, fps, n, sizeof *fps, cmp_fp))
                x->suppressed = 1;
            else if (n && x->mangled && !x->detail) { /* a baseline that fingerprinted the demangled name */
                tlck_finding_fingerprint_demangled(x, old);
                if (bsearch(old, fps, n, sizeof *fps, cmp_fp))
                    x->suppressed = 1;
            }
        }
    free(fps);
    return 0;
}

/* Errors name the baseline file and the reason; a full disk shows only when the buffer is flushed, after
 * tlck_report_json's own ferror(). */
int tlck_baseline_write(const struct tlck_results *r, const struct tlck_options *o, const char *path)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "trueline-check: cannot write baseline %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = tlck_report_json(out, r, o);
    int err = fflush(out) != 0 ? errno : ferror(out) ? (errno ? errno : EIO) : 0;
    if (fclose(out) != 0 && !err)
        err = errno;
    if (err || rc != 0) {
        fprintf(stderr, "trueline-check: cannot write baseline %s: %s\n", path, strerror(err ? err : EIO));
        return -1;
    }
    return 0;
}
