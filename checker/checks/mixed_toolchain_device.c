/* mixed-toolchain, device part: one artifact's cubins should come from one CUDA toolkit release (from each
 * cubin's .note.nv.tkinfo / .note.nv.cuinfo, docs/cuda-formats.md §4.3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/device_checks.h"

#define MAX_VERSIONS 16

void tlck_mixed_toolchain_device(const struct tlck_file *f, enum tlck_severity sev, struct tlck_findings *out)
{
    if (sev == TLCK_SEV_NONE)
        return;
    const char *ver[MAX_VERSIONS];
    size_t count[MAX_VERSIONS], first[MAX_VERSIONS], n = 0;
    for (size_t i = 0; i < f->ndevices; i++) {
        const char *v = f->devices[i].dev.toolkit_version;
        if (f->devices[i].kind != TLCK_IMAGE_CUBIN || !v)
            continue;
        size_t k = 0;
        while (k < n && strcmp(ver[k], v) != 0)
            k++;
        if (k == n && n < MAX_VERSIONS) {
            ver[n] = v, count[n] = 0, first[n] = i;
            n++;
        }
        if (k < n)
            count[k]++;
    }
    if (n < 2)
        return;
    char msg[1024];
    size_t len = 0;
    for (size_t k = 0; k < n && len < sizeof msg; k++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%sCUDA %s: %zu cubins (e.g. %s)", k ? "; " : "", ver[k],
                                count[k], f->devices[first[k]].label);
    tlck_emit(out, "mixed-toolchain", sev, f->display, NULL,
            "rebuild all device code with one CUDA toolkit; cubins from different releases may differ in ABI "
            "and driver requirements",
            "device code from %zu CUDA toolkit releases: %s", n, msg);
}
