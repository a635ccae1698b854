/* The shared libraries the toolchain's executables load, found the way ld.so finds them.
 *
 * Debian's clang-14 is a small driver over libclang-cpp.so.14 and libLLVM-14.so.1; gcc's cc1plus loads
 * libisl/libmpc/libmpfr/libgmp: the compiler is in those libraries, so a library update behind an
 * unchanged driver must change the fingerprint (docs/wrapper.md, "Shared libraries").
 *
 * For each ELF object given, its DT_NEEDED entries are resolved as glibc 2.36's ld.so does (elf/dl-load.c):
 * DT_RPATH of the requesting object and of its loaders (only when the requester has no DT_RUNPATH),
 * LD_LIBRARY_PATH, DT_RUNPATH, /etc/ld.so.cache (elf/dl-cache.c), then the default directories for the
 * ELF's machine; $ORIGIN expanded; breadth-first and de-duplicated by name per executable as ld.so loads
 * them, then de-duplicated by path across executables. glibc's own runtime (libc, ld-linux, libpthread,
 * libdl, librt) is left out: see docs/wrapper.md for why. Everything that decided a resolution
 * (ld.so.cache, directories searched before the hit) is recorded as a dependency (deps.h). */
#ifndef TLCC_WRAPPER_DYNLIBS_H
#define TLCC_WRAPPER_DYNLIBS_H
#include <stddef.h>

#include "fingerprint/deps.h"
#include "strv.h"

/* What one run read for its resolutions: each file's dynamic section, /etc/ld.so.cache, the answers that
 * depend on the name only. Part of the wrapper context (context.h), zero-initialized. */
typedef struct tlcc_dynlibs_cache {
    struct tlcc_dyninfo *info;
    int ninfo, capinfo;
    const unsigned char *ld; /* /etc/ld.so.cache's bytes */
    size_t ld_size, ld_map_len;
    void *ld_map;
    int ld_state; /* 0 not read, 1 read, -1 unusable */
    struct tlcc_plain_res *res;
    int nres;
} tlcc_dynlibs_cache;

/* Appends to out, per library, two strings: the DT_NEEDED name and the resolved path ("" when ld.so
 * would not find it). Objects that are not dynamic ELF files are skipped silently. What decided each
 * resolution is noted in dc's recordings; ld_library_path is the LD_LIBRARY_PATH ld.so would use. */
void tlcc_dynlibs(tlcc_dynlibs_cache *c, tlcc_deps_ctx *dc, const char *ld_library_path, const tlcc_strv *objects,
                  tlcc_strv *out);
void tlcc_dynlibs_cache_free(tlcc_dynlibs_cache *c);

#ifdef TL_FUZZING
void tlcc_dynlibs_fuzz_reset(tlcc_dynlibs_cache *c, const unsigned char *cache, size_t n);
#endif

/* 1 when name is one of glibc's own runtime libraries that the fingerprint leaves out. */
int tlcc_dynlib_excluded(const char *name);

#endif
