/* Code in an artifact that is not the user's: vendor libraries linked in without debug info (the CUDA runtime,
 * libgcc, a static libstdc++) and code the toolchain writes itself (nvcc's host stubs, the CUDA device link,
 * nvcc's device arithmetic helpers). Checks report such code once per origin, as what it is, instead of
 * blaming the user for each of its functions.
 *
 * The origin is inferred from names: a linked file no longer says which object a function came from. Vendor
 * origins are only trusted for functions that no DWARF compile unit claims (the user's own code, built with
 * -g, always lies in one); toolchain-made code sits inside the user's units and is recognised by name alone. */
#ifndef TLCK_CODE_ORIGIN_H
#define TLCK_CODE_ORIGIN_H
#include "model.h"

enum tlck_origin_kind { TLCK_ORIGIN_VENDOR = 1, TLCK_ORIGIN_TOOLCHAIN };

struct tlck_origin {
    enum tlck_origin_kind kind;
    const char *name;       /* "libcudart_static" */
    const char *why;        /* "NVIDIA ships it without -g" */
    const char *soname;     /* the shared library of this origin ("libcudart.so"): a file whose DT_SONAME
                             * starts with it is that library itself, named by its soname; NULL: none */
};

/* The origin of a host function without line rows; NULL when it is the user's. fn->name is the symbol name;
 * clone suffixes (.cold, .part.N) are looked through. cxx_runtime: the file defines the C++ runtime
 * (tlck_defines_cxx_runtime); only then are std:: functions "of a static libstdc++". */
const struct tlck_origin *tlck_host_origin(const struct tlck_function *fn, int cxx_runtime);
/* Whether f defines the C++ runtime's own entry points (__cxa_throw, __gxx_personality_v0): libstdc++ linked
 * statically, or libstdc++ itself. */
int tlck_defines_cxx_runtime(const struct tlck_file *f);
/* For the release profile: a function that no compile unit covers is of "objects linked without -g"; NULL when
 * a unit covers it. */
const struct tlck_origin *tlck_outside_units_origin(const struct tlck_function *fn);
/* The origin of a device function (nvcc's arithmetic helpers such as __cuda_sm20_div_u64, libcudadevrt's device
 * API); NULL: the user's. is_kernel: it is a __global__ function (only a few vendor rows match kernels). */
const struct tlck_origin *tlck_device_origin(const char *name, int is_kernel);
/* fn, a device function without rows among funcs[0..n) (its image's), is a compiler-generated deleting
 * destructor (D0) whose D1/D2 sibling has rows: the toolchain's, not the build's; NULL otherwise. */
const struct tlck_origin *tlck_deleting_dtor_origin(const struct tlck_function *funcs, size_t n,
                                                    const struct tlck_function *fn);
/* A DWARF compile unit that the CUDA toolchain generates (the device link's crt/link.stub), NULL otherwise. */
const struct tlck_origin *tlck_cu_origin(const struct tlck_cu *cu);

/* Counts per origin for one file, in order of first appearance, for reporting one finding per origin. */
#define TLCK_ORIGIN_MAX 16
struct tlck_origin_tally {
    const struct tlck_origin *origin[TLCK_ORIGIN_MAX];
    size_t count[TLCK_ORIGIN_MAX];
    const char *example[TLCK_ORIGIN_MAX];   /* the first function seen (mangled) */
    size_t n;
};
void tlck_origin_add(struct tlck_origin_tally *t, const struct tlck_origin *o, const char *example);

#endif
