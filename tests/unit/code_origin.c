/* checker/checks/code_origin.c: which functions without line rows are not the user's, and the line-tables
 * host part on a hand-built model (vendor code grouped, .cold parts folded into their parent, the user's
 * own functions still named one by one). */
#include <stdlib.h>
#include <string.h>

#include "checks/code_origin.h"
#include "checks/device_checks.h"
#include "checks/host_util.h"
#include "unit.h"

static const char *host_rt(const char *name, unsigned cu_unit, int cxx_runtime)
{
    struct tlck_function fn = { .name = (char *)name, .cu_unit = cu_unit };
    const struct tlck_origin *o = tlck_host_origin(&fn, cxx_runtime);
    return o ? o->name : NULL;
}

/* in a file that defines the C++ runtime (a static libstdc++ is possible there) */
static const char *host(const char *name, unsigned cu_unit)
{
    return host_rt(name, cu_unit, 1);
}

static int is(const char *got, const char *want)
{
    return want ? got && strcmp(got, want) == 0 : got == NULL;
}

static const char *dev(const char *name, int is_kernel)
{
    const struct tlck_origin *o = tlck_device_origin(name, is_kernel);
    return o ? o->name : NULL;
}

/* The deleting destructor (D0) is the compiler's only beside a D1/D2 with rows in the same image. */
static void deleting_destructor(void)
{
    struct tlck_function img[] = {
        { .name = (char *)"_ZN6VectorIiED1Ev", .has_lines = 1 },
        { .name = (char *)"_ZN6VectorIiED0Ev" },
        { .name = (char *)"_ZN5OtherD0Ev" },
        { .name = (char *)"_ZN5OtherD1Ev" },
    };
    const struct tlck_origin *o = tlck_deleting_dtor_origin(img, 4, &img[1]);
    UNIT_CHECK("D0 beside a D1 with rows: the compiler's", o && o->kind == TLCK_ORIGIN_TOOLCHAIN &&
               strstr(o->name, "deleting destructor") != NULL);
    UNIT_CHECK("D0 beside a D1 without rows (no -lineinfo): the user's", tlck_deleting_dtor_origin(img, 4, &img[2]) == NULL);
    UNIT_CHECK("D1 without rows: never", tlck_deleting_dtor_origin(img, 4, &img[3]) == NULL);
    UNIT_CHECK("D0 alone: the user's", tlck_deleting_dtor_origin(img + 1, 1, &img[1]) == NULL);
}

static size_t hits(const struct tlck_findings *out, enum tlck_severity sev, const char *needle)
{
    size_t n = 0;
    for (size_t i = 0; i < out->n; i++)
        n += out->v[i].severity == sev && strstr(out->v[i].message, needle) != NULL;
    return n;
}

static void host_origins(void)
{
    UNIT_CHECK("static cudart's renamed locals, outside every unit", is(host("libcudart_static_0d44431045", 0), "libcudart_static"));
    UNIT_CHECK("cudaMalloc outside every unit", is(host("cudaMalloc", 0), "libcudart_static"));
    UNIT_CHECK("cudart:: C++ names", is(host("_ZN6cudart11globalState4initEv", 0), "libcudart_static"));
    UNIT_CHECK("a .cold part of cudart's is cudart's", is(host("libcudart_static_ab12.cold", 0), "libcudart_static"));
    UNIT_CHECK("a vendor name inside a user's unit stays the user's", is(host("cudaMalloc", 1), NULL));
    UNIT_CHECK("cudalike lower-case names are not cudart's", is(host("cudagraph_helper", 0), NULL));
    UNIT_CHECK("nvcc's device stub, inside the user's unit", is(host("_Z26__device_stub__Z5scalePfmfPfmf", 3), "nvcc's host stubs"));
    UNIT_CHECK("nvcc's registration constructor", is(host("_ZL24__sti____cudaRegisterAllv", 2), "nvcc's host stubs"));
    UNIT_CHECK("the device link's registration", is(host("__cudaRegisterLinkedBinary_bea3024f_9_reduce_cu_615c992f", 0), "the CUDA device link"));
    UNIT_CHECK("the device link's static helper (C++ mangled)",
               is(host("_ZL26__cudaRegisterLinkedBinaryPK19__fatBinC_Wrapper_tPFvPPvES2_", 0), "the CUDA device link"));
    UNIT_CHECK("libgcc's 128-bit division", is(host("__udivti3", 0), "libgcc"));
    UNIT_CHECK("a static libstdc++'s std:: function", is(host("_ZNSt6locale7classicEv", 0), "a static libstdc++"));
    UNIT_CHECK("std:: code of a file that links libstdc++.so (no runtime defined) is its own",
               is(host_rt("_ZNSt6vectorIiSaIiEED2Ev", 0, 0), NULL));
    UNIT_CHECK("... and so is __cxa_* there", is(host_rt("__cxa_guard_acquire", 0, 0), NULL));
    UNIT_CHECK("... libgcc's helpers stay libgcc's", is(host_rt("__udivti3", 0, 0), "libgcc"));
    UNIT_CHECK("a user's function", is(host("_Z8describeRKSt6vectorIfSaIfEE", 0), NULL));
    UNIT_CHECK("a user's C function", is(host("nodebug_helper", 0), NULL));
    UNIT_CHECK("nvcc's 64-bit division helper (device)", tlck_device_origin("__cuda_sm20_div_u64", 0) != NULL);
    UNIT_CHECK("a user's device function", tlck_device_origin("_Z6clampffff", 0) == NULL);
    UNIT_CHECK("libcudadevrt's host stubs of its memcpy kernels, outside every unit",
               is(host("_Z16memcpy_3d_deviceImLi1ELi1ELi1EEv12MemcpyParamsIT_E", 0), "libcudadevrt"));
    UNIT_CHECK("... a user's memcpy_3d_device inside a unit stays the user's",
               is(host("_Z16memcpy_3d_deviceImLi1ELi1ELi1EEv12MemcpyParamsIT_E", 1), NULL));
    UNIT_CHECK("libcudadevrt's device API", is(dev("__cudaCDP2DeviceGetLimit", 0), "libcudadevrt") &&
               is(dev("cudaGetParameterBufferV2", 0), "libcudadevrt") &&
               is(dev("_Z24cnprtCnpv2TranslateError13CNPerror_enum", 0), "libcudadevrt"));
    UNIT_CHECK("libcudadevrt's static memset kernel",
               is(dev("__nv_static_52__f4510a67_22_cuda_device_runtime_cu_3ecce0c0_2317245__Z16memset_3d_deviceIjLi0ELi0ELi0EEv12MemsetParamsIT_E", 1),
                  "libcudadevrt"));
    UNIT_CHECK("a user's static kernel under -rdc is the user's",
               is(dev("__nv_static_26__a1b2c3d4_7_sort_cu_deadbeef__Z9quicksortPjii", 1), NULL));
    UNIT_CHECK("a user's kernel named like a device API is the user's", is(dev("cudaLikeKernel", 1), NULL));
    struct tlck_cu stub = { .name = (char *)"/usr/local/cuda/bin/crt/link.stub" }, user = { .name = (char *)"scale.cu" };
    UNIT_CHECK("crt/link.stub is the device link's unit", tlck_cu_origin(&stub) != NULL && tlck_cu_origin(&user) == NULL);
}

static void line_tables_host(void)
{
    /* line-tables on a linked file: 3 cudart functions, a .cold part of a covered function, a user's function
     * without rows */
    struct tlck_function fns[] = {
        { .name = (char *)"_Z8describev", .addr = 0x1000, .size = 64, .has_lines = 1, .cu_unit = 1 },
        { .name = (char *)"_Z8describev.cold", .addr = 0x2000, .size = 16 },
        { .name = (char *)"libcudart_static_aa", .addr = 0x3000, .size = 32 },
        { .name = (char *)"libcudart_static_bb", .addr = 0x3020, .size = 32 },
        { .name = (char *)"cudaFree", .addr = 0x3040, .size = 32 },
        { .name = (char *)"nodebug_helper", .addr = 0x4000, .size = 8 },
    };
    struct tlck_file f = { .display = (char *)"lib.so", .elf_type = 3 };
    f.host.funcs = fns;
    f.host.nfuncs = sizeof fns / sizeof *fns;
    f.host.has_debug_line = 1;
    struct tlck_findings out = { 0 };
    tlck_line_tables_host(&f, TLCK_SEV_ERROR, 0, &out);
    UNIT_CHECK("cudart: one info finding with its count",
               hits(&out, TLCK_SEV_INFO, "3 functions of libcudart_static have no line info; NVIDIA ships it without -g") == 1);
    UNIT_CHECK("the user's function without rows: one error", hits(&out, TLCK_SEV_ERROR, "has no line rows") == 1);
    int named = 0, cold = 0;
    for (size_t i = 0; i < out.n; i++) {
        named += out.v[i].symbol && strcmp(out.v[i].symbol, "nodebug_helper") == 0;
        cold += out.v[i].symbol && strstr(out.v[i].symbol, ".cold") != NULL;
    }
    UNIT_CHECK("... it is nodebug_helper", named == 1);
    UNIT_CHECK("the .cold part of a covered function is not reported", cold == 0);
    UNIT_CHECK("coverage counts the .cold part as covered", hits(&out, TLCK_SEV_INFO, "line coverage: 2 of 6 functions") == 1);
    tlck_findings_free(&out);
    memset(&out, 0, sizeof out);
    /* NVIDIA's shared runtime itself: named by its soname */
    f.soname = (char *)"libcudart.so.13";
    tlck_line_tables_host(&f, TLCK_SEV_ERROR, 0, &out);
    UNIT_CHECK("libcudart.so.13 itself: its functions are of libcudart.so.13",
               hits(&out, TLCK_SEV_INFO, "3 functions of libcudart.so.13 have no line info") == 1);
    tlck_findings_free(&out);
}

/* line-tables, device part, on a dynamic-parallelism program's shape: the user's cubin with rows (and a D0 without),
 * libcudadevrt's own cubin and PTX without any; then the same with a user's kernel in the line-less cubin. */
static void line_tables_devrt(void)
{
    struct tlck_function user[] = {
        { .name = (char *)"_Z6parentPii", .is_kernel = 1, .has_lines = 1 },
        { .name = (char *)"_ZN6VectorIiED1Ev", .has_lines = 1 },
        { .name = (char *)"_ZN6VectorIiED0Ev" },
        { .name = (char *)"cudaGetParameterBufferV2" },
    };
    struct tlck_function devrt[] = {
        { .name = (char *)"__cudaCDP2DeviceGetLimit" },
        { .name = (char *)"_Z24cnprtCnpv2TranslateError13CNPerror_enum" },
        { .name = (char *)"__cuda_sm20_div_u64" },
        { .name = (char *)"__nv_static_52__f4510a67_22_cuda_device_runtime_cu_3ecce0c0_2317245__Z16memset_3d_deviceIjLi0ELi0ELi0EEv12MemsetParamsIT_E",
          .is_kernel = 1 },
        { .name = (char *)"_Z9userSpillv", .is_kernel = 1 },
    };
    struct tlck_image img[] = {
        { .kind = TLCK_IMAGE_CUBIN, .label = (char *)"fatbin[0].entry[0] sm_90", .funcs = user, .nfuncs = 4,
          .dev = { .has_lineinfo = 1 } },
        { .kind = TLCK_IMAGE_CUBIN, .label = (char *)"relfatbin[1].entry[4] sm_90", .funcs = devrt, .nfuncs = 4 },
        { .kind = TLCK_IMAGE_PTX, .label = (char *)"relfatbin[1].entry[9] compute_121", .funcs = devrt + 3, .nfuncs = 1 },
    };
    struct tlck_file f = { .display = (char *)"cdp", .devices = img, .ndevices = 3 };
    struct tlck_findings out = { 0 };
    tlck_line_tables_device(&f, TLCK_SEV_ERROR, &out);
    UNIT_CHECK("libcudadevrt's cubin and PTX: no error", hits(&out, TLCK_SEV_ERROR, "") == 0);
    UNIT_CHECK("... its 4 functions (one in the user's cubin) are one info of libcudadevrt",
               hits(&out, TLCK_SEV_INFO, "4 device functions of libcudadevrt have no line rows") == 1);
    UNIT_CHECK("... the D0 beside its D1 with rows is the compiler's",
               hits(&out, TLCK_SEV_INFO, "1 device function of compiler-generated deleting destructors") == 1);
    tlck_findings_free(&out);
    memset(&out, 0, sizeof out);
    img[1].nfuncs = 5; /* a user's kernel without rows in that cubin: the image is no longer all vendor code */
    tlck_line_tables_device(&f, TLCK_SEV_ERROR, &out);
    UNIT_CHECK("a user's kernel without rows beside vendor code: its error", hits(&out, TLCK_SEV_ERROR, "kernel has no line rows") == 1);
    UNIT_CHECK("... the vendor functions still info", hits(&out, TLCK_SEV_ERROR, "__cudaCDP2") == 0);
    tlck_findings_free(&out);
}

UNIT_MAIN(UNIT_CASE(host_origins),
          UNIT_CASE(line_tables_devrt),
          UNIT_CASE(deleting_destructor),
          UNIT_CASE(line_tables_host))
