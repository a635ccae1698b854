/* The provenance check on hand-built models: compile units matched to records (plain paths, nvcc's
 * tmpxft copy), toolchains compared per driver, line info, -G under --release, link records ignored. */
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/provenance.h"
#include "unit.h"

extern const struct tlck_check tlck_check_provenance;

static struct tlck_provenance rec(const char *src, const char *drv, const char *fp, int forced, int G)
{
    struct tlck_provenance p = { 0 };
    p.source = strdup(src);
    p.compiler = strdup(strcmp(drv, "nvcc") == 0 ? "nvcc" : "gcc");
    p.driver = strdup(drv);
    p.compiler_version = strdup("v1");
    p.fingerprint = strdup(fp);
    p.cwd = strdup("/w");
    p.lineinfo_level = strdup(forced ? "-g1" : "");
    p.lineinfo_forced = forced != 0;
    p.device_debug = G != 0;
    return p;
}

static struct tlck_cu cu(const char *name, const char *dir)
{
    struct tlck_cu c = { 0 };
    c.name = strdup(name);
    c.comp_dir = strdup(dir);
    c.producer = strdup("GNU C17 12.2.0");
    return c;
}

static size_t run(struct tlck_file *f, int release, struct tlck_findings *out, const char *needle, enum tlck_severity *sev)
{
    struct tlck_policy p = { .release = release };
    tlck_findings_free(out);
    memset(out, 0, sizeof *out);
    tlck_check_provenance.run(f, &p, NULL, TLCK_SEV_ERROR, out);
    size_t hits = 0;
    for (size_t i = 0; i < out->n; i++)
        if (strstr(out->v[i].message, needle)) {
            hits++;
            if (sev)
                *sev = out->v[i].severity;
        }
    return hits;
}

static void one_artifact(void)
{
    struct tlck_file f = { 0 };
    f.display = strdup("lib.so");
    f.elf_type = 3;
    f.notes = calloc(8, sizeof *f.notes);
    f.notes[f.nnotes++] = rec("a.c", "gcc", "f1", 1, 0);
    f.notes[f.nnotes++] = rec("b.cpp", "g++", "f2", 1, 0);
    f.notes[f.nnotes++] = rec("k.cu", "nvcc", "f3", 1, 0);
    f.host.cus = calloc(8, sizeof *f.host.cus);
    f.host.cus[f.host.ncus++] = cu("a.c", "/w");
    f.host.cus[f.host.ncus++] = cu("/w/b.cpp", "/elsewhere");
    f.host.cus[f.host.ncus++] = cu("/tmp/tmpxft_0000318d_00000000-6_k.cudafe1.cpp", "/w");
    struct tlck_findings out = { 0 };
    enum tlck_severity sev = TLCK_SEV_NONE;

    UNIT_CHECK("gcc + g++ + nvcc, one toolchain each: no findings", run(&f, 0, &out, "", NULL) == 0);
    f.host.cus[f.host.ncus++] = cu("c.c", "/w");
    UNIT_CHECK("a compile unit without a record is reported",
               run(&f, 0, &out, "1 of 4 compile units have no provenance record", &sev) == 1 && sev == TLCK_SEV_WARNING);
    free(f.host.cus[3].producer);
    f.host.cus[3].producer = strdup("GNU AS 2.40");
    UNIT_CHECK("assembler units are not expected to have records", run(&f, 0, &out, "compile units", NULL) == 0);
    f.host.cus[f.host.ncus++] = cu("/usr/local/cuda/bin/crt/link.stub", "/w/build");
    UNIT_CHECK("nvcc -dlink's crt/link.stub unit: not built outside the wrapper",
               run(&f, 0, &out, "no provenance record", NULL) == 0);
    UNIT_CHECK("... but one info finding says it is the device link's",
               run(&f, 0, &out, "1 compile unit made by the CUDA device link", &sev) == 1 && sev == TLCK_SEV_INFO);

    f.notes[f.nnotes++] = rec("d.cpp", "g++", "f9", 1, 0);
    UNIT_CHECK("two g++ fingerprints: error naming both sources",
               run(&f, 0, &out, "several g++ toolchains in one artifact: b.cpp", &sev) == 1 && sev == TLCK_SEV_ERROR);
    free(f.notes[3].fingerprint);
    f.notes[3].fingerprint = strdup("f2");
    f.notes[3].is_link = 1;
    free(f.notes[3].fingerprint);
    f.notes[3].fingerprint = strdup("f7");
    UNIT_CHECK("a link record is not an object", run(&f, 0, &out, "several", NULL) == 0);
    f.notes[3].is_link = 0;
    free(f.notes[3].fingerprint);
    f.notes[3].fingerprint = strdup("f2");

    f.notes[1].lineinfo_forced = 0;
    UNIT_CHECK("not forced, but the build's own -g1 gives line info: no finding",
               run(&f, 0, &out, "without forced line info", NULL) == 0);
    free(f.notes[1].lineinfo_level);
    f.notes[1].lineinfo_level = strdup("");
    UNIT_CHECK("object without forced line info: warning",
               run(&f, 0, &out, "b.cpp was compiled without forced line info", &sev) == 1 && sev == TLCK_SEV_WARNING);
    f.notes[1].lineinfo_forced = 1;
    f.notes[2].device_debug = 1;
    UNIT_CHECK("-G object: warning", run(&f, 0, &out, "k.cu was compiled with -G", &sev) == 1 && sev == TLCK_SEV_WARNING);
    UNIT_CHECK("-G object under --release: error", run(&f, 1, &out, "with -G", &sev) == 1 && sev == TLCK_SEV_ERROR);
    tlck_findings_free(&out);
    tlck_file_free(&f);
}

static void no_records(void)
{
    struct tlck_findings out = { 0 };
    enum tlck_severity sev = TLCK_SEV_NONE;
    struct tlck_file g = { 0 };
    g.display = strdup("plain.so");
    g.elf_type = 3;
    UNIT_CHECK("no records at all: one info finding", run(&g, 0, &out, "no provenance records", &sev) == 1 &&
                                                          sev == TLCK_SEV_INFO);
    /* nvcc -dlink output without DWARF: its functions are the device link's registration code */
    g.host.funcs = calloc(2, sizeof *g.host.funcs);
    g.host.funcs[g.host.nfuncs++] = (struct tlck_function){ .name = strdup("__cudaRegisterLinkedBinary_1a2b_8_k_cu_3c4d") };
    g.host.funcs[g.host.nfuncs++] = (struct tlck_function){ .name = strdup("_ZL26__cudaRegisterLinkedBinaryPK19__fatBinC_Wrapper_tPFvPPvES2_") };
    UNIT_CHECK("device-link output: said to be made by the CUDA device link, not 'not built through trueline-cc'",
               run(&g, 0, &out, "made by the CUDA device link", &sev) == 1 && sev == TLCK_SEV_INFO &&
                   run(&g, 0, &out, "not built through trueline-cc", NULL) == 0);
    tlck_findings_free(&out);
    tlck_file_free(&g);
}

/* nvcc with several -gencode targets names the host unit after the last virtual architecture */
static void nvcc_gencode_units(void)
{
    static const struct { const char *unit; int recorded; } cases[] = {
        { "/tmp/tmpxft_00001b9c_00000000-6_k.compute_90.cudafe1.cpp", 1 },
        { "/tmp/tmpxft_00001b9c_00000000-6_k.compute_90a.cudafe1.cpp", 1 },
        { "/tmp/tmpxft_00001b9c_00000000-6_k.compute_100f.cudafe1.cpp", 1 },
        { "/tmp/tmpxft_00001b9c_00000000-6_k.cudafe1.cpp", 1 },
        { "/tmp/tmpxft_00001b9c_00000000-6_kx.compute_90.cudafe1.cpp", 0 }, /* another stem */
        { "/tmp/tmpxft_00001b9c_00000000-6_k.compute_.cudafe1.cpp", 0 },     /* no architecture */
        { "/tmp/tmpxft_00001b9c_00000000-6_k.other_90.cudafe1.cpp", 0 },
        { "/tmp/tmpxft_00001b9c_00000000-6_k.compute_9.0.cudafe1.cpp", 0 },
        { "/tmp/tmpxft_00001b9c_00000000-6_.cudafe1.cpp", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tlck_file f = { 0 };
        f.display = strdup("k.o");
        f.elf_type = 1;
        f.notes = calloc(1, sizeof *f.notes);
        f.notes[f.nnotes++] = rec("k.cu", "nvcc", "f3", 1, 0);
        f.host.cus = calloc(1, sizeof *f.host.cus);
        f.host.cus[f.host.ncus++] = cu(cases[i].unit, "/w");
        UNIT_CHECK(cases[i].unit, tlck_provenance_cu_recorded(&f, &f.host.cus[0]) == cases[i].recorded);
        tlck_file_free(&f);
    }
}

UNIT_MAIN(UNIT_CASE(one_artifact), UNIT_CASE(no_records), UNIT_CASE(nvcc_gencode_units))
