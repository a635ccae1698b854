/* Origins of code that is not the user's, recognised by name (see code_origin.h). One table per side: a new
 * vendor library or toolchain helper is a row. */
#include "checks/code_origin.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "checks/host_util.h"

static const struct tlck_origin NVCC_STUBS = {
    .kind = TLCK_ORIGIN_TOOLCHAIN, .name = "nvcc's host stubs",
    .why = "nvcc writes this kernel-launch and registration code into the host side of every .cu file"
};
static const struct tlck_origin DEVICE_LINK = {
    .kind = TLCK_ORIGIN_TOOLCHAIN, .name = "the CUDA device link",
    .why = "nvcc -dlink writes this registration code (CMake's cmake_device_link.o); the device-link step passes no "
           "compiler launcher"
};
static const struct tlck_origin CUDART = {
    .kind = TLCK_ORIGIN_VENDOR, .name = "libcudart_static",
    .why = "NVIDIA ships it without -g", .soname = "libcudart.so"
};
static const struct tlck_origin LIBGCC = {
    .kind = TLCK_ORIGIN_VENDOR, .name = "libgcc",
    .why = "GCC's runtime helpers are linked from libgcc.a / libgcc_eh.a, built without -g"
};
static const struct tlck_origin LIBSTDCXX = {
    .kind = TLCK_ORIGIN_VENDOR, .name = "a static libstdc++",
    .why = "it is linked from libstdc++.a (-static-libstdc++), whose debug info the distribution ships separately"
};
static const struct tlck_origin DEVICE_HELPERS = {
    .kind = TLCK_ORIGIN_TOOLCHAIN, .name = "nvcc's device arithmetic helpers",
    .why = "nvcc adds them (64-bit integer division, division and square-root slow paths) without line information"
};
static const struct tlck_origin LINK_STUB_UNIT = {
    .kind = TLCK_ORIGIN_TOOLCHAIN, .name = "the CUDA device link",
    .why = "nvcc -dlink compiles its generated crt/link.stub (CMake's cmake_device_link.o); the device-link step passes "
           "no compiler launcher"
};

/* The release profile judges a shipped file by the units it carries debug info for: code outside every unit was
 * linked from objects built without -g, in a shipped file almost always static archives of other projects
 * (a distribution's libzstd.a, libelf.a, libc.a), whose names no table can list. */
static const struct tlck_origin OUTSIDE_UNITS = {
    .kind = TLCK_ORIGIN_VENDOR, .name = "objects linked without -g",
    .why = "no compile unit covers them: statically linked code of other projects, judged by the release profile "
           "as not the shipped file's own (the build profile reports each)"
};

struct rule {
    const struct tlck_origin *origin;
    const char *pattern;      /* fnmatch pattern */
    unsigned demangled : 1;   /* matched against the demangled name (C++ scopes), else the symbol name */
    unsigned in_cu : 1;       /* also when a compile unit of the user's covers the function */
    unsigned cxx_runtime : 1; /* only in a file that defines the C++ runtime itself (tlck_defines_cxx_runtime) */
};

/* First match wins. Toolchain-made host code lives inside the user's units (nvcc's .cudafe1.cpp), so it is
 * recognised wherever it is; vendor names only outside every unit, where a user's object built without -g
 * would otherwise be the explanation. */
static const struct rule HOST_RULES[] = {
    { &NVCC_STUBS, "__device_stub__*", 1, 1, 0 },
    { &NVCC_STUBS, "__sti____cudaRegisterAll*", 1, 1, 0 },
    { &NVCC_STUBS, "__nv_*", 1, 1, 0 },
    { &NVCC_STUBS, "____nv_*", 1, 1, 0 },
    { &NVCC_STUBS, "__cudaUnregisterBinaryUtil*", 1, 1, 0 },
    { &DEVICE_LINK, "__cudaRegisterLinkedBinary*", 1, 1, 0 },
    { &DEVICE_LINK, "__fatbinwrap*", 1, 1, 0 },
    { &CUDART, "libcudart_static_*", 0, 0, 0 },
    { &CUDART, "cuda[A-Z]*", 0, 0, 0 },
    { &CUDART, "__cuda*", 0, 0, 0 },
    { &CUDART, "__cudart*", 0, 0, 0 },
    { &CUDART, "cudart::*", 1, 0, 0 },
    { &LIBGCC, "__*[dt]i[234]", 0, 0, 0 },
    { &LIBGCC, "__*[sdt]f[234]", 0, 0, 0 },
    { &LIBGCC, "__*[sdxt]c3", 0, 0, 0 },
    { &LIBGCC, "__fix*", 0, 0, 0 },
    { &LIBGCC, "__float*", 0, 0, 0 },
    { &LIBGCC, "__powi*", 0, 0, 0 },
    { &LIBGCC, "__cpu_indicator_init", 0, 0, 0 },
    { &LIBGCC, "_Unwind_*", 0, 0, 0 },
    { &LIBGCC, "__gcc_personality_v0", 0, 0, 0 },
    { &LIBGCC, "__register_frame*", 0, 0, 0 },
    { &LIBGCC, "__deregister_frame*", 0, 0, 0 },
    { &LIBSTDCXX, "std::*", 1, 0, 1 },
    { &LIBSTDCXX, "__gnu_cxx::*", 1, 0, 1 },
    { &LIBSTDCXX, "__cxxabiv1::*", 1, 0, 1 },
    { &LIBSTDCXX, "operator new*", 1, 0, 1 },
    { &LIBSTDCXX, "operator delete*", 1, 0, 1 },
    { &LIBSTDCXX, "__cxa_*", 0, 0, 1 },
    { &LIBSTDCXX, "__gxx_*", 0, 0, 1 },
    { &LIBSTDCXX, "__dynamic_cast", 0, 0, 1 },
};

/* Device functions nvcc adds to a cubin: its integer/floating-point helpers (__cuda_sm20_div_u64,
 * __cuda_sm3x_div_rn_noftz_f32_slowpath) and libdevice's internals, compiled from bitcode without lines. */
static const struct rule DEVICE_RULES[] = {
    { &DEVICE_HELPERS, "__cuda_sm[0-9]*", 0, 1, 0 },
    { &DEVICE_HELPERS, "__internal_*", 0, 1, 0 },
    { &DEVICE_HELPERS, "__nv_*", 0, 1, 0 },
};

static const struct tlck_origin *match(const struct rule *r, size_t n, const char *name, int in_cu, int cxx_runtime)
{
    char *dem = NULL;
    const struct tlck_origin *found = NULL;
    for (size_t i = 0; i < n && !found; i++) {
        if ((in_cu && !r[i].in_cu) || (r[i].cxx_runtime && !cxx_runtime))
            continue;
        if (r[i].demangled && !dem && !(dem = tlck_demangle(name)))
            continue;
        if (fnmatch(r[i].pattern, r[i].demangled ? dem : name, FNM_NOESCAPE) == 0)
            found = r[i].origin;
    }
    free(dem);
    return found;
}

/* The C++ runtime's own entry points: a file defines them only when libstdc++ (or libsupc++) was linked into it
 * statically; the std:: code of a module that links libstdc++.so.6 is its own template instantiations, and a
 * supplement such as libstdc++_nonshared.a defines none of these. */
static const char *const CXX_RUNTIME[] = { "__cxa_throw", "__cxa_begin_catch", "__gxx_personality_v0" };

int tlck_defines_cxx_runtime(const struct tlck_file *f)
{
    if (f->is_libstdcxx)
        return 1;
    for (size_t i = 0; i < f->host.nfuncs; i++)
        for (size_t k = 0; k < sizeof CXX_RUNTIME / sizeof *CXX_RUNTIME; k++)
            if (f->host.funcs[i].name && strcmp(f->host.funcs[i].name, CXX_RUNTIME[k]) == 0)
                return 1;
    return 0;
}

const struct tlck_origin *tlck_host_origin(const struct tlck_function *fn, int cxx_runtime)
{
    char buf[512];
    const char *base = tlck_clone_base(fn->name, buf, sizeof buf);
    return match(HOST_RULES, sizeof HOST_RULES / sizeof *HOST_RULES, base, fn->cu_unit != 0, cxx_runtime);
}

const struct tlck_origin *tlck_outside_units_origin(const struct tlck_function *fn)
{
    return fn->cu_unit == 0 ? &OUTSIDE_UNITS : NULL;
}

const struct tlck_origin *tlck_device_origin(const char *name)
{
    return name ? match(DEVICE_RULES, sizeof DEVICE_RULES / sizeof *DEVICE_RULES, name, 1, 0) : NULL;
}

const struct tlck_origin *tlck_cu_origin(const struct tlck_cu *cu)
{
    const char *b = cu && cu->name ? strrchr(cu->name, '/') : NULL;
    b = b ? b + 1 : cu ? cu->name : NULL;
    return b && strcmp(b, "link.stub") == 0 ? &LINK_STUB_UNIT : NULL;
}

void tlck_origin_add(struct tlck_origin_tally *t, const struct tlck_origin *o, const char *example)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->origin[i] == o) {
            t->count[i]++;
            return;
        }
    if (t->n == TLCK_ORIGIN_MAX)
        return;
    t->origin[t->n] = o;
    t->count[t->n] = 1;
    t->example[t->n++] = example;
}
