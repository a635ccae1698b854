/* Origins of code that is not the user's, recognised by name (see code_origin.h). One table per side: a new
 * vendor library or toolchain helper is a row. */
#include "checks/code_origin.h"

#include <fnmatch.h>
#include <stdio.h>
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
/* The device runtime of CUDA dynamic parallelism (-rdc=true -lcudadevrt): one object, cuda_device_runtime.o,
 * whose host side holds the memcpy/memset kernels' stubs and whose fatbin carries the device API (cudaMalloc,
 * cudaLaunchDevice, ...) for every arch; neither side has line information. */
static const struct tlck_origin CUDADEVRT = {
    .kind = TLCK_ORIGIN_VENDOR, .name = "libcudadevrt",
    .why = "NVIDIA ships the CUDA device runtime (dynamic parallelism) without -g or -lineinfo"
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
static const struct tlck_origin DELETING_DTOR = {
    .kind = TLCK_ORIGIN_TOOLCHAIN, .name = "compiler-generated deleting destructors",
    .why = "for a virtual destructor the compiler adds a deleting destructor (D0: destroy, then operator delete) that "
           "cicc/ptxas give no .loc; the destructor the user wrote (D1/D2) has its rows"
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
    unsigned kernel : 1;      /* device: also a kernel (__global__), else device functions only */
};

/* First match wins. Toolchain-made host code lives inside the user's units (nvcc's .cudafe1.cpp), so it is
 * recognised wherever it is; vendor names only outside every unit, where a user's object built without -g
 * would otherwise be the explanation. */
static const struct rule HOST_RULES[] = {
    { &NVCC_STUBS, "__device_stub__*", 1, 1, 0, 0 },
    { &NVCC_STUBS, "__sti____cudaRegisterAll*", 1, 1, 0, 0 },
    { &NVCC_STUBS, "__nv_*", 1, 1, 0, 0 },
    { &NVCC_STUBS, "____nv_*", 1, 1, 0, 0 },
    { &NVCC_STUBS, "__cudaUnregisterBinaryUtil*", 1, 1, 0, 0 },
    { &DEVICE_LINK, "__cudaRegisterLinkedBinary*", 1, 1, 0, 0 },
    { &DEVICE_LINK, "__fatbinwrap*", 1, 1, 0, 0 },
    /* nm on libcudadevrt.a: its only host functions are the stubs of these kernel templates */
    { &CUDADEVRT, "_Z16memcpy_3d_device*", 0, 0, 0, 0 },
    { &CUDADEVRT, "_Z16memset_3d_device*", 0, 0, 0, 0 },
    { &CUDART, "libcudart_static_*", 0, 0, 0, 0 },
    { &CUDART, "cuda[A-Z]*", 0, 0, 0, 0 },
    { &CUDART, "__cuda*", 0, 0, 0, 0 },
    { &CUDART, "__cudart*", 0, 0, 0, 0 },
    { &CUDART, "cudart::*", 1, 0, 0, 0 },
    { &LIBGCC, "__*[dt]i[234]", 0, 0, 0, 0 },
    { &LIBGCC, "__*[sdt]f[234]", 0, 0, 0, 0 },
    { &LIBGCC, "__*[sdxt]c3", 0, 0, 0, 0 },
    { &LIBGCC, "__fix*", 0, 0, 0, 0 },
    { &LIBGCC, "__float*", 0, 0, 0, 0 },
    { &LIBGCC, "__powi*", 0, 0, 0, 0 },
    { &LIBGCC, "__cpu_indicator_init", 0, 0, 0, 0 },
    { &LIBGCC, "_Unwind_*", 0, 0, 0, 0 },
    { &LIBGCC, "__gcc_personality_v0", 0, 0, 0, 0 },
    { &LIBGCC, "__register_frame*", 0, 0, 0, 0 },
    { &LIBGCC, "__deregister_frame*", 0, 0, 0, 0 },
    { &LIBSTDCXX, "std::*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "__gnu_cxx::*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "__cxxabiv1::*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "operator new*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "operator delete*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "__cxa_*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "__gxx_*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "__dynamic_cast", 0, 0, 1, 0 },
    /* libstdc++.a's own file-local helpers, C names outside any namespace (nm on Debian's and GCC 13's
     * libstdc++.a): the demangler behind __cxa_demangle (cp-demangle.o), the exception personality's LSDA
     * reader (eh_personality.o), the emergency exception pool (eh_alloc.o), the transactional-memory string
     * helpers (cow-stdexcept.o) */
    { &LIBSTDCXX, "d_*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "__gcclibcxx_demangle_callback", 0, 0, 1, 0 },
    { &LIBSTDCXX, "is_designated_init*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "next_is_type_qual*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "get_adjusted_ptr*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "read_encoded_value*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "get_ttype_entry*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "check_exception_spec*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "base_of_encoded_value*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "size_of_encoded_value*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "parse_lsda_header*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "(anonymous namespace)::pool::*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "(anonymous namespace)::*error_category*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "(anonymous namespace)::constant_init*", 1, 0, 1, 0 },
    /* the static initializers of its translation units (system_error.cc, the locale instantiations ...) */
    { &LIBSTDCXX, "_GLOBAL__sub_I_eh_*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "_GLOBAL__sub_I_*_inst*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "_GLOBAL__sub_I_*ios_failure*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "_GLOBAL__sub_I_system_error*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "_GLOBAL__sub_I_ios_init*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "_GLOBAL__sub_I_locale_init*", 0, 0, 1, 0 },
    { &LIBSTDCXX, "_txnal_*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "__gxx_*", 1, 0, 1, 0 },
    { &LIBSTDCXX, "transaction clone for *", 1, 0, 1, 0 },
};

/* Device functions nvcc adds to a cubin: its integer/floating-point helpers (__cuda_sm20_div_u64,
 * __cuda_sm3x_div_rn_noftz_f32_slowpath) and libdevice's internals, compiled from bitcode without lines. */
static const struct rule DEVICE_RULES[] = {
    { &DEVICE_HELPERS, "__cuda_sm[0-9]*", 0, 1, 0, 0 },
    /* The functions of libcudadevrt.a's cubins (readelf -s on the cubins cuobjdump -xelf takes out of it): the
     * device-side runtime API, its syscalls into the driver and the static memcpy/memset kernels, named after
     * their file by nvcc's __nv_static_ prefix. A user's device code cannot define these names: the runtime's
     * headers declare them. */
    { &CUDADEVRT, "cuda[A-Z]*", 0, 1, 0, 0 },
    { &CUDADEVRT, "cnp[A-Z]*", 0, 1, 0, 0 },
    { &CUDADEVRT, "__cudaCDP[0-9]*", 0, 1, 0, 0 },
    { &CUDADEVRT, "__cuda_syscall_*", 0, 1, 0, 0 },
    { &CUDADEVRT, "__cudaDeviceSynchronizeDeprecationAvoidance", 0, 1, 0, 0 },
    { &CUDADEVRT, "_Z*cnprtCnpv[0-9]TranslateError*", 0, 1, 0, 0 },
    { &CUDADEVRT, "malloc", 0, 1, 0, 0 },
    { &CUDADEVRT, "free", 0, 1, 0, 0 },
    { &CUDADEVRT, "__nv_static_*_cuda_device_runtime_cu_*", 0, 1, 0, 1 },
    { &DEVICE_HELPERS, "__internal_*", 0, 1, 0, 0 },
    { &DEVICE_HELPERS, "__nv_*", 0, 1, 0, 0 },
};

/* Whether a demangled-name pattern can match name's demangling at all. A pattern that begins with an identifier
 * of 4 or more characters (then '*' or "::") matches only a demangling that begins with it, and the Itanium ABI
 * writes every identifier verbatim into the mangled name (a substitution repeats one written before): so a
 * mangled name without that identifier cannot match, and is not demangled for it. Demangling every symbol of a
 * 195k-symbol library was a fifth of a wheel's audit. Other patterns ("std::*": std is "St"; "operator new*")
 * are always tried. */
static int may_match(const char *pattern, const char *name, size_t name_len)
{
    size_t k = 0; /* the identifier the pattern begins with (a loop: strspn builds its table on every call) */
    while ((pattern[k] >= 'a' && pattern[k] <= 'z') || (pattern[k] >= 'A' && pattern[k] <= 'Z') ||
           (pattern[k] >= '0' && pattern[k] <= '9') || pattern[k] == '_')
        k++;
    if (k < 4 || !(pattern[k] == '*' || (pattern[k] == ':' && pattern[k + 1] == ':')))
        return 1;
    return memmem(name, name_len, pattern, k) != NULL;
}

/* Whether an Itanium-mangled name's own (outermost) scope is the namespace a "NS::*" pattern names. The
 * demangling of a function template begins with its return type ("bool std::operator==<char>(...)"), so the
 * pattern alone misses libstdc++'s templates; the mangled name says the scope whatever comes first. Local
 * entities (Z...E) and transaction clones (GTt) take their enclosing function's scope. */
static int scope_matches(const char *pattern, const char *name)
{
    const char *colons = strstr(pattern, "::*");
    if (!colons || colons[3] || strncmp(name, "_Z", 2) != 0)
        return 0;
    const char *p = name + 2;
    for (;;) { /* what stands before the function's own encoding */
        if (*p == 'Z')
            p++;
        else if (strncmp(p, "GTt", 3) == 0)
            p += 3;
        else if (p[0] == 'T' && (p[1] == 'h' || p[1] == 'v' || p[1] == 'c')) { /* thunks: call offsets h<n>_ v<n>_<n>_ */
            int offsets = p[1] == 'c' ? 2 : 1;
            p += p[1] == 'c' ? 2 : 1;
            for (int k = 0; k < offsets; k++) {
                char kind = *p++;
                for (int parts = kind == 'v' ? 2 : 1; parts-- > 0;) {
                    p += *p == 'n';
                    p += strspn(p, "0123456789");
                    if (*p++ != '_')
                        return 0;
                }
            }
        } else
            break;
    }
    if (*p == 'N')
        for (p++; *p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O'; p++)
            ;
    size_t nl = (size_t)(colons - pattern);
    if (nl == 3 && strncmp(pattern, "std", 3) == 0) /* St, or one of the std:: abbreviations */
        return p[0] == 'S' && p[1] && strchr("tabsiod", p[1]);
    char len[16];
    int w = snprintf(len, sizeof len, "%zu", nl);
    return w > 0 && strncmp(p, len, (size_t)w) == 0 && strncmp(p + w, pattern, nl) == 0;
}

static const struct tlck_origin *match(const struct rule *r, size_t n, const char *name, int in_cu, int cxx_runtime,
                                       int kernel)
{
    char *dem = NULL;
    const struct tlck_origin *found = NULL;
    int mangled = name[0] == '_' && name[1] == 'Z';
    size_t name_len = mangled ? strlen(name) : 0;
    for (size_t i = 0; i < n && !found; i++) {
        if ((in_cu && !r[i].in_cu) || (r[i].cxx_runtime && !cxx_runtime) || (kernel && !r[i].kernel))
            continue;
        if (r[i].demangled && !dem && mangled && !may_match(r[i].pattern, name, name_len))
            continue;
        if (r[i].demangled && !dem && !(dem = tlck_demangle(name)))
            continue;
        if (fnmatch(r[i].pattern, r[i].demangled ? dem : name, FNM_NOESCAPE) == 0 ||
            (r[i].demangled && mangled && scope_matches(r[i].pattern, name)))
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
    return match(HOST_RULES, sizeof HOST_RULES / sizeof *HOST_RULES, base, fn->cu_unit != 0, cxx_runtime, 0);
}

const struct tlck_origin *tlck_outside_units_origin(const struct tlck_function *fn)
{
    return fn->cu_unit == 0 ? &OUTSIDE_UNITS : NULL;
}

const struct tlck_origin *tlck_device_origin(const char *name, int is_kernel)
{
    return name ? match(DEVICE_RULES, sizeof DEVICE_RULES / sizeof *DEVICE_RULES, name, 1, 0, is_kernel) : NULL;
}

/* Itanium mangling names the deleting destructor D0 and the complete-object / base-object ones D1 / D2, each
 * followed by the E closing the nested name. A D0 clone is the compiler's only when a sibling of the same class
 * sits in the same image with rows: then the destructor's code was built with line info, and a D0 without
 * rows says nothing about the build (a build without -lineinfo leaves the siblings without rows too). */
const struct tlck_origin *tlck_deleting_dtor_origin(const struct tlck_function *funcs, size_t n,
                                                    const struct tlck_function *fn)
{
    if (!fn->name || fn->has_lines || fn->is_kernel || strncmp(fn->name, "_Z", 2) != 0)
        return NULL;
    size_t len = strlen(fn->name);
    char *sib = malloc(len + 1);
    if (!sib)
        return NULL;
    const struct tlck_origin *found = NULL;
    for (const char *p = strstr(fn->name, "D0E"); p && !found; p = strstr(p + 1, "D0E")) {
        for (char d = '1'; d <= '2' && !found; d++) {
            memcpy(sib, fn->name, len + 1);
            sib[p - fn->name + 1] = d;
            for (size_t i = 0; i < n && !found; i++)
                if (funcs[i].has_lines && funcs[i].name && strcmp(funcs[i].name, sib) == 0)
                    found = &DELETING_DTOR;
        }
    }
    free(sib);
    return found;
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
