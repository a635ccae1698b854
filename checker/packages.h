/* The packages (wheels, conda packages) among an audit's inputs, as the package pass (package_pass.h) leaves them
 * in the results for the emitters: each one's members, and its release verdict (docs/packages.md): the platform
 * tag its files satisfy against the one its file name claims, its device code (kernels with and without line
 * rows, archs against the cuda-arch policy), its std:: exports, and what line info costs in it, per member and in
 * total. Facts of the model and of the audit's findings, computed once per package after the checks. */
#ifndef TLCK_PACKAGES_H
#define TLCK_PACKAGES_H
#include <stddef.h>
#include <stdint.h>

/* One member with code (an ELF file or a device image file). */
struct tlck_member_facts {
    size_t file;                         /* index into r->files */
    unsigned cubins, cubins_with_lines;  /* device images: SASS */
    unsigned ptx, ptx_with_lines;        /* device images: PTX, and those with .loc/.file */
    size_t kernels, kernels_with_lines;  /* kernels of its cubins, one per cubin that holds it */
    size_t std_exports;                  /* exported std:: / C++ runtime symbols (stl-leak's sense of exported) */
    uint64_t host_debug, host_debug_line;/* .debug_* (and of them .debug_line) bytes, as stored */
    uint64_t cubin_lines, ptx_lines;     /* device line info, uncompressed (tlck_device_info.line_bytes) */
    uint64_t device_lines_stored;        /* the same, scaled by each image's stored/uncompressed ratio */
    /* line info split out of the member (--split, eu-strip -f, the wrapper's line_info_store): what the debug
     * store (or debug directory, or server) holds for it, which is what the split saved the shipped member */
    uint64_t split_host_debug, split_host_debug_line; /* .debug_* (and .debug_line) of its separate debug file */
    uint64_t split_device_lines;         /* line sections of its split cubins' store parts, uncompressed */
    uint64_t split_device_stored;        /* the same, scaled by each shipped image's stored/uncompressed ratio */
    unsigned split_host_missing;         /* 1: host DWARF split out and no debug file found (store not given) */
    unsigned split_images, split_images_missing; /* cubins shipped without line info; of them, no store part */
};

struct tlck_package_verdict {
    int platform_judged;                 /* a wheel of x86_64 files with a table to judge it by */
    char family[16];                     /* "manylinux" or "musllinux" */
    char satisfied[64];                  /* the most compatible tag the files satisfy, "linux" when none */
    char claimed[64];                    /* the most compatible tag of that family the file name claims; "" */
    int claim_met;                       /* the files satisfy the claimed tag */
    char reason[512];                    /* what keeps the files from the next more compatible tag, or "" */
    char claim_reason[512];              /* when the claim is NOT met: what the claimed tag does not allow, or "" */
    /* auditwheel's symbol blacklist: the least compatible tag it rules out ("" when it rules out none; then also
     * every more compatible tag), the member, the library and the symbols of that tag's first hit */
    char bl_tag[64], bl_file[256], bl_lib[64], bl_symbols[256];
    const char **bl_all; size_t bl_nall; /* every symbol of that hit ("*" alone for a whole library): for JSON */
    char sass[256], ptx[256];            /* archs present in the package, space-separated ("sm_80 sm_90") */
    size_t arch_findings;                /* unsuppressed cuda-arch findings at warning or above */
    int device_lines_wanted;             /* kernels without line rows are a defect under the audit's policy: its
                                          * profile asks for device line info and line-tables is not off */
    struct tlck_member_facts *m;  size_t nm;
    struct tlck_member_facts total;      /* sums over m (total.file unused) */
};

/* One package among the inputs (its members are consecutive in the results' files). */
struct tlck_package_summary {
    const char *path;        /* the package file */
    size_t first, n;         /* its members: r->files[first .. first + n) */
    size_t unreadable;       /* of them, the members not read (f->error) */
    const char *runs_on;     /* oldest manylinux tag by symbol versions; NULL when none, no table, members that
                              * are not x86_64, or a musllinux wheel */
    char claimed[64];        /* the wheel's own tag ("" for conda packages and non-x86_64 wheels) */
    struct tlck_package_verdict verdict;
};

#endif
