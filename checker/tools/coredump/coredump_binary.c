/* Finding a core's kernel again in the artifact that shipped it by name, SM and code size. Two
 * copies can share a name and SM (Triton compiles one per specialisation: its cache held two
 * conditional_hang_kernel cubins of different sizes), so the code size must agree as well. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/fatbin.h"
#include "tools/coredump/coredump_binary.h"
#include "trueline/file_kind.h"


struct search {
    struct cd_where *w;
    size_t cubins;              /* device images looked at */
    size_t matched;             /* same name, SM and size */
    char *nolines;              /* first match without line info */
    char *failure;              /* first lookup error */
};

unsigned cd_cubin_sm(const tl_elf *e)
{
    unsigned f = (unsigned)e->ehdr.e_flags;
    return e->ehdr.e_ident[EI_ABIVERSION] >= 8 ? (f >> 8) & 0xff : f & 0xff;
}

static void append_note(struct cd_where *w, const char *text)
{
    size_t a = w->line_note ? strlen(w->line_note) : 0, b = strlen(text);
    char *p = realloc(w->line_note, a + b + 3);
    if (!p)
        return;
    if (a) {
        memcpy(p + a, "; ", 2);
        a += 2;
    }
    memcpy(p + a, text, b + 1);
    w->line_note = p;
}

/* One device image (name says where it came from, for messages and line_origin). */
static void try_cubin(struct search *s, const unsigned char *p, size_t n, const char *name)
{
    tl_elf e;
    tl_error err;
    if (s->w->nframes)
        return;
    if (tl_elf_open_mem(&e, name, p, n, &err) != 0 || e.ehdr.e_machine != TL_EM_CUDA) {
        tl_elf_close(&e);
        return;
    }
    s->cubins++;
    /* The section, not the function: a per-kernel clone ($kernel$function) lies in its kernel's .text. */
    char sec[4096];
    if (s->w->section)
        snprintf(sec, sizeof sec, "%s", s->w->section);
    else
        snprintf(sec, sizeof sec, ".text.%s", s->w->mangled);
    GElf_Shdr sh;
    if (tl_elf_section(&e, sec, &sh) && sh.sh_size == s->w->code_size && cd_cubin_sm(&e) == s->w->sm) {
        s->matched++;
        if (!tl_elf_section(&e, ".debug_line", NULL)) {
            if (!s->nolines)
                s->nolines = strdup(name);
        } else {
            uint64_t off = s->w->offset - (s->w->offset >= s->w->line_bias ? s->w->line_bias : 0);
            int rc = cd_chain_lookup(p, n, name, s->w->mangled, off, 0, s->w, &err);
            if (rc == 0)
                s->w->line_origin = strdup(name);
            else if (!s->failure) {
                char buf[TL_ERR_MAX + 512];
                snprintf(buf, sizeof buf, "%s: %s", name, rc == 1 ? "its line table has no row at this offset"
                                                                  : err.msg);
                s->failure = strdup(buf);
            }
        }
    }
    tl_elf_close(&e);
}

struct fatbin_walk {
    struct search *s;
    const char *path;
    struct tlck_fatbin_scratch scratch;
};

static int fatbin_entry(const struct tlck_fatbin_entry *fe, void *ctx)
{
    struct fatbin_walk *fw = ctx;
    if (fe->error || fe->kind != TLCK_FATBIN_KIND_ELF || fe->arch != fw->s->w->sm)
        return 0;
    const unsigned char *img;
    size_t n;
    tl_error err;
    if (tlck_fatbin_image(fe, &fw->scratch, TL_SECTION_MAX, &img, &n, &err) != 0)
        return 0;
    char name[4096];
    snprintf(name, sizeof name, "%s (fatbin entry %u.%u, sm_%u)", fw->path, fe->container, fe->index, fe->arch);
    try_cubin(fw->s, img, n, name);
    return fw->s->w->nframes ? 1 : 0;
}

/* The device images of a host ELF (its fatbin sections) or of a standalone .fatbin file. */
static void cd_search_fatbins(struct search *s, const unsigned char *p, size_t n, const char *path)
{
    static const char *const sections[] = { ".nv_fatbin", "__nv_relfatbin" };
    struct fatbin_walk fw = { .s = s, .path = path };
    tl_error err;
    enum tl_file_kind kind = tl_sniff(p, n, NULL);
    if (kind == TL_FILE_FATBIN) {
        tlck_fatbin_walk(p, n, 0, fatbin_entry, &fw, &err);
    } else if (kind == TL_FILE_ELF) {
        tl_elf e;
        if (tl_elf_open_mem(&e, path, p, n, &err) == 0)
            for (size_t i = 0; i < sizeof sections / sizeof sections[0] && !s->w->nframes; i++) {
                Elf_Scn *scn = tl_elf_section(&e, sections[i], NULL);
                tl_bytes b;
                if (scn && tl_elf_section_raw(&e, scn, &b, &err) == 0)
                    tlck_fatbin_walk(b.p, b.n, 0, fatbin_entry, &fw, &err);
            }
        tl_elf_close(&e);
    }
    tlck_fatbin_scratch_free(&fw.scratch);
}

static void try_file(struct search *s, const char *path)
{
    const unsigned char *data;
    size_t size, map_len;
    void *map;
    tl_error err;
    if (tl_map_file(path, &data, &size, &map, &map_len, &err) != 0)
        return;
    struct tl_elf_ident id;
    if (tl_sniff(data, size, &id) == TL_FILE_ELF && size > TL_SNIFF_BYTES && id.machine == TL_EM_CUDA)
        try_cubin(s, data, size, path);
    else
        cd_search_fatbins(s, data, size, path);
    tl_unmap_file(map, map_len);
}

/* nftw has no context argument; the tool is single-threaded. */
static struct search *walk_ctx;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag == FTW_F && S_ISREG(st->st_mode) && st->st_size > 64)
        try_file(walk_ctx, path);
    return walk_ctx->w->nframes ? 1 : 0;
}

void cd_lines_from_binary(const char *path, struct cd_where *w)
{
    struct search s = { .w = w };
    struct stat st;
    char buf[8192];
    if (stat(path, &st) != 0) {
        snprintf(buf, sizeof buf, "--binary %s: cannot be read", path);
        append_note(w, buf);
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        walk_ctx = &s;
        nftw(path, walk_one, 16, FTW_PHYS);
        walk_ctx = NULL;
    } else {
        try_file(&s, path);
    }
    if (!w->nframes) {
        if (s.failure)
            snprintf(buf, sizeof buf, "--binary %s: %s", path, s.failure);
        else if (s.nolines)
            snprintf(buf, sizeof buf, "--binary %s: the same kernel (sm_%u, %llu bytes of code) is in %s, without "
                     "line info either", path, w->sm, (unsigned long long)w->code_size, s.nolines);
        else
            snprintf(buf, sizeof buf, "--binary %s: no sm_%u copy of %s with %llu bytes of code among its %zu "
                     "device images", path, w->sm,
                     w->section && strncmp(w->section, ".text.", 6) == 0 ? w->section + 6 : w->mangled,
                     (unsigned long long)w->code_size, s.cubins);
        append_note(w, buf);
    }
    free(s.nolines);
    free(s.failure);
}
