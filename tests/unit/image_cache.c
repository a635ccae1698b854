/* checker/read/image_cache.c: device-image summaries survive encoding field by field (the truth is the image
 * built here), a form for another number of images or any shorter or longer form is refused with nothing
 * changed, and a damaged byte anywhere never crashes or half-fills an image. */
#include "unit.h"

#include <stdlib.h>

#include "read/image_cache.h"

/* Two images as the cubin and PTX readers would leave them: functions, a unit, strings and NULLs. */
static void sample(struct tlck_image *v)
{
    memset(v, 0, 2 * sizeof *v);
    v[0].kind = TLCK_IMAGE_CUBIN;
    v[0].dev.sm = 90;
    v[0].dev.arch_suffix = 'a';
    v[0].dev.has_lineinfo = 1;
    v[0].dev.is_relocatable = 1;
    v[0].dev.nkernels = 1;
    v[0].dev.line_bytes = 4242;
    v[1].dev.lines_split = 1; /* shipped without line info: the identity keys its debug-store part */
    for (int i = 0; i < 16; i++)
        v[1].dev.line_id[i] = (unsigned char)(0xa0 + i);
    v[0].dev.producer = strdup("ptxas Cuda compilation tools, release 13.0, V13.0.97");
    v[0].dev.toolkit_version = strdup("13.0");
    v[0].dev.ptxas_options = strdup("-lineinfo  -arch sm_90a -m 64 ");
    v[0].has_debug_line = 1;
    v[0].nfuncs = 2;
    v[0].funcs = calloc(2, sizeof *v[0].funcs);
    v[0].funcs[0] = (struct tlck_function){ .name = strdup("_Z4kernPf"), .addr = 0, .size = 0x180, .shndx = 7,
                                            .bind = 1, .visibility = 0, .is_kernel = 1, .has_lines = 1,
                                            .covered = 0x180, .cu = strdup("kern.cu"), .cu_unit = 1 };
    v[0].funcs[1] = (struct tlck_function){ .name = strdup("_Z6helperv"), .addr = 0x10, .size = 0x40, .shndx = 9,
                                            .bind = 2, .visibility = 2 };
    v[0].ncus = 1;
    v[0].cus = calloc(1, sizeof *v[0].cus);
    v[0].cus[0] = (struct tlck_cu){ .name = strdup("kern.cu"), .rows = 57, .dwarf_version = 2,
                                    .line_offset = UINT64_MAX };
    v[1].kind = TLCK_IMAGE_PTX;
    v[1].dev.sm = 120;
    v[1].dev.is_virtual = 1;
    v[1].dev.ptxas_options = strdup(" --generate-line-info ");
}

static void free2(struct tlck_image *v)
{
    tlck_image_free(&v[0]);
    tlck_image_free(&v[1]);
}

static void round_trip(void)
{
    struct tlck_image src[2], dst[2];
    sample(src);
    memset(dst, 0, sizeof dst);
    dst[0].dev.sm = 1; /* header-described fields the summary replaces */
    dst[1].dev.ptxas_options = strdup("from the header");
    size_t len = 0;
    unsigned char *buf = tlck_image_summary_encode(src, 2, &len);
    UNIT_CHECK("encodes", buf && len > 8);
    UNIT_CHECK("decodes", buf && tlck_image_summary_decode(buf, len, dst, 2) == 0);
    UNIT_CHECK("sm", dst[0].dev.sm == 90 && dst[0].dev.arch_suffix == 'a');
    UNIT_CHECK("flags", dst[0].dev.has_lineinfo && dst[0].dev.is_relocatable && !dst[0].dev.is_debug &&
                        dst[0].has_debug_line && !dst[0].has_debug_info);
    UNIT_CHECK("counts", dst[0].dev.nkernels == 1 && dst[0].dev.line_bytes == 4242);
    UNIT_CHECK("split out, with its identity", !dst[0].dev.lines_split && dst[1].dev.lines_split &&
               dst[1].dev.line_id[0] == 0xa0 && dst[1].dev.line_id[15] == 0xaf);
    UNIT_STREQ("producer", dst[0].dev.producer, src[0].dev.producer);
    UNIT_STREQ("toolkit", dst[0].dev.toolkit_version, "13.0");
    UNIT_STREQ("options", dst[0].dev.ptxas_options, src[0].dev.ptxas_options);
    UNIT_CHECK("functions", dst[0].nfuncs == 2 && dst[0].funcs);
    if (dst[0].nfuncs == 2) {
        UNIT_STREQ("name", dst[0].funcs[0].name, "_Z4kernPf");
        UNIT_STREQ("cu", dst[0].funcs[0].cu, "kern.cu");
        UNIT_CHECK("function fields", dst[0].funcs[0].size == 0x180 && dst[0].funcs[0].shndx == 7 &&
                                      dst[0].funcs[0].is_kernel && dst[0].funcs[0].has_lines &&
                                      dst[0].funcs[0].covered == 0x180 && dst[0].funcs[0].cu_unit == 1);
        UNIT_CHECK("second function", dst[0].funcs[1].addr == 0x10 && !dst[0].funcs[1].cu &&
                                      dst[0].funcs[1].bind == 2 && dst[0].funcs[1].visibility == 2 &&
                                      !dst[0].funcs[1].is_kernel);
    }
    UNIT_CHECK("unit", dst[0].ncus == 1 && dst[0].cus[0].rows == 57 && dst[0].cus[0].line_offset == UINT64_MAX &&
                       !dst[0].cus[0].producer);
    UNIT_STREQ("ptx options", dst[1].dev.ptxas_options, " --generate-line-info ");
    UNIT_CHECK("ptx empty", dst[1].nfuncs == 0 && !dst[1].dev.producer && dst[1].dev.sm == 120);
    free(buf);
    free2(src);
    free2(dst);
}

static void refuses_other_shapes(void)
{
    struct tlck_image src[2], dst[2];
    sample(src);
    size_t len = 0;
    unsigned char *buf = tlck_image_summary_encode(src, 2, &len);
    memset(dst, 0, sizeof dst);
    UNIT_CHECK("another count", buf && tlck_image_summary_decode(buf, len, dst, 1) != 0);
    UNIT_CHECK("another count 3", buf && tlck_image_summary_decode(buf, len, dst, 3) != 0);
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    UNIT_CHECK("trailing byte", tlck_image_summary_decode(longer, len + 1, dst, 2) != 0);
    int shorter_ok = 0;
    for (size_t k = 0; k < len; k++)
        shorter_ok += tlck_image_summary_decode(buf, k, dst, 2) == 0;
    UNIT_CHECK("every shorter form refused", shorter_ok == 0);
    UNIT_CHECK("nothing filled", dst[0].nfuncs == 0 && !dst[0].dev.producer && dst[0].dev.sm == 0);
    free(longer);
    free(buf);
    free2(src);
    free2(dst);
}

/* Every byte flipped in turn: decoding either refuses (images untouched) or succeeds with consistent images. */
static void damaged_bytes(void)
{
    struct tlck_image src[2];
    sample(src);
    size_t len = 0;
    unsigned char *buf = tlck_image_summary_encode(src, 2, &len);
    int inconsistent = 0;
    for (size_t k = 0; buf && k < len; k++) {
        buf[k] ^= 0x5A;
        struct tlck_image dst[2];
        memset(dst, 0, sizeof dst);
        if (tlck_image_summary_decode(buf, len, dst, 2) == 0) {
            for (size_t i = 0; i < dst[0].nfuncs; i++)
                inconsistent += dst[0].funcs[i].cu_unit > dst[0].ncus;
        } else
            inconsistent += dst[0].nfuncs != 0 || dst[0].dev.producer != NULL;
        free2(dst);
        buf[k] ^= 0x5A;
    }
    UNIT_CHECK("damage refused or consistent", inconsistent == 0);
    free(buf);
    free2(src);
}

UNIT_MAIN(UNIT_CASE(round_trip), UNIT_CASE(refuses_other_shapes), UNIT_CASE(damaged_bytes))
