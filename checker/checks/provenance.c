/* provenance: what the `.note.trueline` records say about how an artifact was built.
 * - several toolchains for one compiler driver (distinct fingerprints or version strings): the check's
 *   severity (error by default). nvcc records next to g++ records are normal: nvcc's fingerprint already
 *   covers its host compiler, so drivers are compared separately.
 * - compile units in DWARF that no record names: built outside the wrapper (warning); when no object has
 *   a record at all, one info finding says so (most third-party artifacts have none).
 * - objects whose line info was not forced, and -G (device debug) objects: warning; -G is an error-level
 *   finding in a --release audit. */
#include "trueline/note.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/code_origin.h"
#include "checks/provenance.h"
#include "trueline/file_kind.h"
#include "profile.h"

#define ID "provenance"

static enum tlck_severity cap(enum tlck_severity sev, enum tlck_severity at_most)
{
    return sev < at_most ? sev : at_most;
}

static const char *base(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

/* Path as the compiler saw it: dir/name unless name is absolute. */
static char *full(const char *dir, const char *name)
{
    if (!name)
        return NULL;
    if (name[0] == '/' || !dir || !*dir)
        return strdup(name);
    return tlck_asprintf("%s/%s", dir, name);
}

/* nvcc's host compile sees a preprocessed copy: the CU is named
 * /tmp/tmpxft_<8 hex>_<8 hex>-<n>_<stem>.cudafe1.cpp (gcc 12 under nvcc 13.0, measured), or, with more than one
 * -gencode target, <stem>.compute_<arch>.cudafe1.cpp after the last virtual architecture (compute_90,
 * compute_90a, compute_100f). Matches when <stem> is the record's source without its extension. */
static int nvcc_temp_matches(const char *cu_base, const char *src)
{
    const char *end = strstr(cu_base, ".cudafe1."), *p = cu_base;
    if (strncmp(cu_base, "tmpxft_", 7) != 0 || !end || !(p = strchr(cu_base, '-')))
        return 0;
    p++;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p++ != '_')
        return 0;
    const char *sb = base(src), *dot = strrchr(sb, '.');
    size_t n = dot ? (size_t)(dot - sb) : strlen(sb);
    if (p > end || (size_t)(end - p) < n || strncmp(p, sb, n) != 0)
        return 0;
    const char *arch = p + n;
    if (arch == end)
        return 1;
    if (strncmp(arch, ".compute_", 9) != 0 || arch + 9 == end)
        return 0;
    for (arch += 9; arch < end; arch++)
        if (!isalnum((unsigned char)*arch))
            return 0;
    return 1;
}

static int cu_matches(const struct tlck_cu *cu, const struct tlck_provenance *n)
{
    if (!cu->name || !n->source)
        return 0;
    char *a = full(cu->comp_dir, cu->name), *b = full(n->cwd, n->source);
    int same = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return same || strcmp(base(cu->name), base(n->source)) == 0 || nvcc_temp_matches(base(cu->name), n->source);
}

int tlck_provenance_cu_expected(const struct tlck_cu *cu)
{
    /* Assembler-only units (crt files, .S sources) have producer "GNU AS ..." and no wrapper to pass; units the
     * toolchain generates and compiles itself (nvcc -dlink's crt/link.stub) never pass a launcher either. */
    return cu->name && !(cu->producer && strncmp(cu->producer, "GNU AS", 6) == 0) && !tlck_cu_origin(cu);
}

int tlck_provenance_cu_recorded(const struct tlck_file *f, const struct tlck_cu *cu)
{
    for (size_t i = 0; i < f->nnotes; i++)
        if (!f->notes[i].is_link && cu_matches(cu, &f->notes[i]))
            return 1;
    return 0;
}

/* Records are compared per driver: gcc and g++ (or nvcc) objects in one library legitimately carry
 * different fingerprints, two g++ fingerprints do not. Older records without "drv" group by family. */
static const char *group(const struct tlck_provenance *n)
{
    return n->driver ? n->driver : n->compiler;
}

static int same_group(const struct tlck_provenance *a, const struct tlck_provenance *b)
{
    return !a->is_link && !b->is_link && group(a) && group(b) && strcmp(group(a), group(b)) == 0;
}

static void toolchains(const struct tlck_file *f, enum tlck_severity sev, struct tlck_findings *out)
{
    for (size_t i = 0; i < f->nnotes; i++) {
        const struct tlck_provenance *a = &f->notes[i];
        if (a->is_link || !group(a))
            continue;
        int first = 1;
        for (size_t j = 0; j < i && first; j++)
            first = !same_group(&f->notes[j], a);
        if (!first)
            continue; /* this driver was examined from its first record */
        for (size_t j = i + 1; j < f->nnotes; j++) {
            const struct tlck_provenance *b = &f->notes[j];
            if (!same_group(a, b))
                continue;
            int fp_diff = a->fingerprint && b->fingerprint && strcmp(a->fingerprint, b->fingerprint) != 0;
            int ver_diff = a->compiler_version && b->compiler_version &&
                           strcmp(a->compiler_version, b->compiler_version) != 0;
            if (!fp_diff && !ver_diff)
                continue;
            tlck_emit(out, ID, sev, f->display, NULL,
                    "rebuild every object with one toolchain (compare the fingerprints with trueline-check "
                    "--provenance and TRUELINE_EXPLAIN=1)",
                    "several %s toolchains in one artifact: %s (%s, fingerprint %.16s) and %s (%s, "
                    "fingerprint %.16s)",
                    group(a), a->source ? a->source : "?", a->compiler_version ? a->compiler_version : "?",
                    a->fingerprint ? a->fingerprint : "?", b->source ? b->source : "?",
                    b->compiler_version ? b->compiler_version : "?", b->fingerprint ? b->fingerprint : "?");
            break; /* one finding per driver names the conflict */
        }
    }
}

/* Output of a toolchain step that is no compile: every function is the toolchain's own code (nvcc -dlink's
 * registration functions in CMake's cmake_device_link.o when it has no DWARF to name crt/link.stub). */
static const struct tlck_origin *toolchain_output(const struct tlck_file *f)
{
    const struct tlck_origin *o = NULL;
    int rt = tlck_defines_cxx_runtime(f);
    for (size_t i = 0; i < f->host.nfuncs; i++) {
        const struct tlck_origin *x = tlck_host_origin(&f->host.funcs[i], rt);
        if (!x || x->kind != TLCK_ORIGIN_TOOLCHAIN)
            return NULL;
        if (!o || x == o)
            o = x;
    }
    return o;
}

static void unrecorded_units(const struct tlck_file *f, size_t ncompile, struct tlck_findings *out)
{
    size_t missing = 0, units = 0, made = 0;
    const char *example = NULL;
    const struct tlck_origin *maker = NULL;
    for (size_t c = 0; c < f->host.ncus; c++) {
        const struct tlck_cu *cu = &f->host.cus[c];
        const struct tlck_origin *o = tlck_cu_origin(cu);
        if (o) {
            made++;
            maker = o;
        }
        if (!tlck_provenance_cu_expected(cu))
            continue;
        units++;
        if (!tlck_provenance_cu_recorded(f, cu)) {
            missing++;
            if (!example)
                example = cu->name;
        }
    }
    if (made)
        tlck_emit(out, ID, TLCK_SEV_INFO, f->display, NULL, NULL, "%zu compile unit%s made by %s, not by a compile: %s",
                made, made == 1 ? "" : "s", maker->name, maker->why);
    if (ncompile == 0 && made && units == 0)
        return; /* toolchain output only (cmake_device_link.o): nothing of the user's to record */
    const struct tlck_origin *tool = ncompile == 0 && units == 0 && !made ? toolchain_output(f) : NULL;
    if (tool) {
        tlck_emit(out, ID, TLCK_SEV_INFO, f->display, NULL, NULL,
                "no provenance records: all %zu of its functions are made by %s, not by a compile: %s",
                f->host.nfuncs, tool->name, tool->why);
        return;
    }
    if (ncompile == 0) {
        if (f->elf_type)
            tlck_emit(out, ID, TLCK_SEV_INFO, f->display, NULL, "build it through trueline-cc to record provenance",
                    "no provenance records (%s): not built through trueline-cc%s", TL_NOTE_SECTION,
                    units ? "" : " (and no DWARF compile units to compare)");
        return;
    }
    if (missing)
        tlck_emit(out, ID, TLCK_SEV_WARNING, f->display, NULL,
                "compile these sources through trueline-cc (CMake: CMAKE_<LANG>_COMPILER_LAUNCHER)",
                "%zu of %zu compile units have no provenance record (built outside the wrapper), e.g. %s",
                missing, units, example);
}

static void per_object(const struct tlck_file *f, const struct tlck_policy *p, enum tlck_severity sev,
                       struct tlck_findings *out)
{
    for (size_t i = 0; i < f->nnotes; i++) {
        const struct tlck_provenance *n = &f->notes[i];
        if (n->is_link)
            continue;
        const char *src = n->source ? n->source : "(unknown source)";
        /* Nothing forced because the build's own flags already asked for line info (-g, -lineinfo): the
         * object has what forcing would have added, and the record says which flags were in effect. */
        if (!n->lineinfo_forced && !(n->lineinfo_level && *n->lineinfo_level))
            tlck_emit(out, ID, cap(sev, TLCK_SEV_WARNING), f->display, src,
                    "enable forced line info in trueline-cc ([wrapper] configuration)",
                    "%s was compiled without forced line info (%s; line info in effect: %s)", src,
                    n->compiler ? n->compiler : "unknown compiler",
                    n->lineinfo_level && *n->lineinfo_level ? n->lineinfo_level : "none");
        if (n->device_debug)
            tlck_emit(out, ID, p && p->release ? sev : cap(sev, TLCK_SEV_WARNING), f->display, src,
                    "drop -G for release builds (-lineinfo keeps line info without disabling optimization)",
                    "%s was compiled with -G (device debug: unoptimized device code)", src);
    }
}


static void run(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out)
{
    /* A standalone cubin never carries a record: trueline-cc stamps the host object a device image is embedded
     * in, and ptxas/nvlink output is no compile of a launcher. Nothing to say about it either way. */
    if (f->error || f->machine == TL_EM_CUDA)
        return;
    /* without section headers no record can be looked for: line-tables says so, "not built through trueline-cc"
     * would be a guess */
    if (f->no_section_headers)
        return;
    size_t ncompile = 0;
    for (size_t i = 0; i < f->nnotes; i++)
        ncompile += !f->notes[i].is_link;
    if (f->warning && f->has_note_section && strstr(f->warning, TL_NOTE_SECTION))
        tlck_emit(out, ID, sev, f->display, NULL, "the artifact was modified after the build; rebuild it",
                "damaged provenance section: %s", f->warning);
    /* a shipped third-party file never went through trueline-cc: the release profile says so only when asked */
    if (ncompile || tlck_profile_of(p)->provenance_absent || tlck_profile_asked(p, ID))
        unrecorded_units(f, ncompile, out);
    toolchains(f, sev, out);
    per_object(f, p, sev, out);
}

const struct tlck_check tlck_check_provenance = {
    .id = ID,
    .default_severity = TLCK_SEV_ERROR,
    .summary = "provenance notes: one toolchain, every object through the wrapper, line info forced",
    .help_uri = "docs/checks/provenance.md",
    .run = run,
};
