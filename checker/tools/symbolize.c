/* --symbolize FILE [LOCATION...] [--sm N] [--addr2line]: source position with the full inline chain, innermost
 * first, for SASS offsets — what `nvdisasm -gi` prints next to those instructions, without disassembling.
 * A LOCATION is KERNEL+0xOFFSET or a PC; with none (or "-") they are read from stdin, one per line. Many
 * locations are answered in one process: FILE is mapped and its cubin images are extracted (decompressed) once.
 *
 * FILE may be a cubin, a fatbin or a host ELF carrying fatbins. Every cubin image (restricted to --sm N when
 * given) that defines the function is answered; a PC is looked up in the single image --sm selects (or the only
 * cubin). The core is tlck_cubin_symbolize (read/cubin_lines.h), shared with --coredump. A host ELF (executable
 * or shared object) answers a PC in its own code sections from its host DWARF, as addr2line does, whether or not
 * it carries device images; --sm makes a PC a device one.
 *
 * Output: text (a heading per answer, one "#N file:line in function" per frame), JSON Lines (--format json: one
 * object per answer, with the location asked), or with --addr2line what `addr2line -f -i -C` prints: per
 * frame, innermost first, the function's name and then file:line; "??" and "??:0" where there is no answer,
 * so that output stays in step with the input. */
#include <demangle.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "options.h"
#include "read/cubin.h"
#include "read/cubin_lines.h"
#include "read/read_ctx.h"
#include "read/device.h"
#include "report/formats.h"
#include "report/json_write.h"
#include "tools/symbolize_host.h"
#include "tools/symbolize_store.h"
#include "tools/tools.h"
#include "trueline/elf_file.h"

struct location {
    char *function;     /* NULL for a PC */
    uint64_t value;     /* offset from the function, or the PC */
};

static int parse_location(const char *s, struct location *loc)
{
    memset(loc, 0, sizeof *loc);
    const char *plus = strrchr(s, '+');
    const char *num = plus ? plus + 1 : s;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(num, &end, 0);
    if (errno || end == num || *end)
        return -1;
    loc->value = v;
    if (plus) {
        if (plus == s)
            return -1;
        loc->function = strndup(s, (size_t)(plus - s));
    }
    return 0;
}

/* One JSON object per answered image, one per line (JSON Lines), so a caller can stream several images. */
static void json_chain(const char *display, const char *label, const char *asked, const struct tlck_cubin_chain *c)
{
    struct tlck_jw w;
    tlck_jw_init(&w, stdout, 0);
    tlck_jw_object(&w, NULL);
    tlck_jw_str(&w, "location", asked);
    tlck_jw_str(&w, "file", display);
    tlck_jw_str(&w, "image", label);
    tlck_jw_str(&w, "symbol", c->symbol);
    tlck_jw_uint(&w, "offset", c->offset);
    tlck_jw_array(&w, "frames");
    for (size_t i = 0; i < c->n; i++) {
        const struct tlck_cubin_frame *f = &c->v[i];
        char *dm = cplus_demangle(f->function, DMGL_PARAMS | DMGL_ANSI);
        tlck_jw_object(&w, NULL);
        tlck_jw_str(&w, "file", f->file);
        tlck_jw_uint(&w, "line", f->line);
        tlck_jw_uint(&w, "column", f->column);
        tlck_jw_str(&w, "function", f->function);
        tlck_jw_str(&w, "demangled", dm ? dm : f->function);
        tlck_jw_bool(&w, "inlined", i + 1 < c->n);
        tlck_jw_end(&w);
        free(dm);
    }
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    fputc('\n', stdout);
}

static void print_chain(const struct tlck_cubin_chain *c)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct tlck_cubin_frame *f = &c->v[i];
        char *dm = cplus_demangle(f->function, DMGL_PARAMS | DMGL_ANSI);
        printf("  #%zu %s:%u", i, f->file, f->line);
        if (f->column)
            printf(":%u", f->column);
        printf(" in %s%s\n", dm ? dm : f->function, i + 1 < c->n ? " (inlined)" : "");
        free(dm);
    }
}

/* addr2line -f -i -C: each frame's function, then its file:line; "??:0" for a frame without a line. */
static void addr2line_chain(const struct tlck_cubin_chain *c, int r)
{
    if (r == 1 || c->n == 0) {
        char *dm = c->symbol ? cplus_demangle(c->symbol, DMGL_PARAMS | DMGL_ANSI) : NULL;
        printf("%s\n??:0\n", dm ? dm : c->symbol ? c->symbol : "??");
        free(dm);
        return;
    }
    for (size_t i = 0; i < c->n; i++) {
        const struct tlck_cubin_frame *f = &c->v[i];
        char *dm = cplus_demangle(f->function, DMGL_PARAMS | DMGL_ANSI);
        printf("%s\n%s:%u\n", dm ? dm : f->function, f->file, f->line);
        free(dm);
    }
}

enum out_kind { OUT_TEXT, OUT_JSON, OUT_ADDR2LINE };

/* Returns 1 when answered, 0 when this image does not define the function, -1 on error. */
static int one_image(const char *display, const char *label, const unsigned char *p, size_t n,
                     const struct location *loc, const char *asked, enum out_kind kind)
{
    struct tlck_cubin_chain c;
    tl_error err;
    int r = loc->function ? tlck_cubin_symbolize(p, n, display, loc->function, loc->value, &c, &err)
                          : tlck_cubin_symbolize_pc(p, n, display, loc->value, &c, &err);
    if (r < 0 && loc->function && strncmp(err.msg, "no function", 11) == 0)
        return 0;
    if (r < 0) {
        fprintf(stderr, "trueline-check: %s: %s: %s\n", display, label, err.msg);
        return -1;
    }
    if (kind == OUT_JSON) {
        json_chain(display, label, asked, &c); /* frames [] when the offset has no line row */
    } else if (kind == OUT_ADDR2LINE) {
        addr2line_chain(&c, r);
    } else {
        printf("%s+0x%llx (%s):\n", c.symbol, (unsigned long long)c.offset, label);
        if (r == 1)
            printf("  no line information for this offset (build with -lineinfo)\n");
        else
            print_chain(&c);
    }
    tlck_cubin_chain_free(&c);
    return 1;
}

static void cubin_file_label(const char *display, const unsigned char *p, size_t n, const struct tlck_device_ref *r,
                             char *label, size_t cap)
{
    struct tlck_image img;
    memset(&img, 0, sizeof img);
    char arch[32];
    if (tlck_cubin_summarize(p, n, display, NULL, &img) == 0) {
        tlck_device_arch_name(arch, sizeof arch, img.dev.sm, img.dev.arch_suffix, 0);
        tlck_device_label(label, cap, r, r->fe.container, r->fe.index, arch);
    }
    tlck_image_free(&img);
}

/* The cubin images of one input that --sm lets through, extracted once for all locations. */
struct image {
    char label[96];
    unsigned char *bytes; /* owned copy: the fatbin scratch is reused for the next image */
    size_t n;
};

struct images {
    struct image *v;
    size_t n, cap;
    int failed; /* an image could not be extracted (said on stderr) */
};

static void images_free(struct images *im)
{
    for (size_t i = 0; i < im->n; i++)
        free(im->v[i].bytes);
    free(im->v);
}

static void load_images(const struct tlck_input *in, const struct tlck_options *o, const unsigned char *data,
                        size_t size, struct images *im)
{
    tl_error err;
    struct tlck_device_refs refs = { 0 };
    if (tlck_device_enumerate(in->display, data, size, &refs, &err) != 0)
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
    struct tlck_fatbin_scratch s = { 0 };
    for (size_t i = 0; i < refs.n; i++) {
        const struct tlck_device_ref *r = &refs.v[i];
        if (r->fe.kind != TLCK_FATBIN_KIND_ELF || (o->sm && !r->is_cubin_file && r->fe.arch != o->sm))
            continue;
        const unsigned char *p;
        size_t n;
        char label[96], arch[32];
        tlck_device_entry_arch(arch, sizeof arch, &r->fe); /* only ELF entries get here: never virtual */
        tlck_device_label(label, sizeof label, r, r->fe.container, r->fe.index, arch);
        if (tlck_fatbin_image(&r->fe, &s, tlck_read_image_cap(o), &p, &n, &err) != 0) {
            fprintf(stderr, "trueline-check: %s: %s: %s\n", in->display, label, err.msg);
            im->failed = 1;
            continue;
        }
        if (r->is_cubin_file) /* no fatbin entry to name the arch: the cubin's own header does (as --list) */
            cubin_file_label(in->display, p, n, r, label, sizeof label);
        unsigned char *copy = malloc(n ? n : 1);
        if (!copy || tlck_grow((void **)&im->v, &im->cap, im->n + 1, sizeof *im->v) != 0) {
            free(copy);
            fprintf(stderr, "trueline-check: %s: %s: out of memory\n", in->display, label);
            im->failed = 1;
            continue;
        }
        memcpy(copy, p, n);
        tlck_sym_store_device(o, in->display, label, &copy, &n); /* line info split out: its store part */
        struct image *m = &im->v[im->n++];
        snprintf(m->label, sizeof m->label, "%s", label);
        m->bytes = copy;
        m->n = n;
    }
    tlck_fatbin_scratch_free(&s);
    tlck_device_refs_free(&refs);
}

#define HOST_FRAMES 64

/* The host side of an input. Without device images every location is a host address (`only`). A linked host
 * ELF with device images answers a PC in one of its own code sections from its host DWARF, as addr2line does
 * (a device PC asks for the image with --sm, or by KERNEL+0xOFFSET); its DWARF is read at the first such PC. */
struct host_side {
    const char *path;
    int only;
    struct { uint64_t lo, hi; } code[16]; /* SHF_ALLOC|SHF_EXECINSTR: .init .plt .text .fini and the like */
    size_t ncode;
    struct tlck_host_lines *hl;
    int tried;
    char why[TL_ERR_MAX]; /* why hl could not be read */
};

static void host_code_ranges(struct host_side *hs, const char *display, const unsigned char *data, size_t size)
{
    tl_elf e;
    tl_error err;
    if (tl_elf_open_mem(&e, display, data, size, &err) == 0 && e.ehdr.e_machine != EM_CUDA &&
        (e.ehdr.e_type == ET_EXEC || e.ehdr.e_type == ET_DYN)) {
        Elf_Scn *scn = NULL;
        GElf_Shdr sh;
        while ((scn = elf_nextscn(e.elf, scn)) != NULL && hs->ncode < sizeof hs->code / sizeof hs->code[0])
            if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && sh.sh_size &&
                (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR)) {
                hs->code[hs->ncode].lo = sh.sh_addr;
                hs->code[hs->ncode++].hi = sh.sh_addr + sh.sh_size;
            }
    }
    tl_elf_close(&e);
}

static int in_host_code(const struct host_side *hs, uint64_t pc)
{
    for (size_t i = 0; i < hs->ncode; i++)
        if (pc >= hs->code[i].lo && pc < hs->code[i].hi)
            return 1;
    return 0;
}

/* The host DWARF, read at the first host address asked; NULL (hs->why says why) when there is none. */
static const struct tlck_host_lines *host_lines(struct host_side *hs)
{
    if (!hs->tried) {
        tl_error err;
        hs->tried = 1;
        if (!(hs->hl = tlck_host_lines_open(hs->path, &err)))
            snprintf(hs->why, sizeof hs->why, "%s", err.msg);
    }
    return hs->hl;
}

/* A host address: 1 answered, 0 no function holds it. */
static int host_answer(const char *display, const struct tlck_host_lines *hl, const char *asked, uint64_t pc,
                       enum out_kind kind)
{
    struct tlck_host_frame fr[HOST_FRAMES];
    uint64_t lo = 0;
    size_t n = tlck_host_lines_at(hl, pc, fr, HOST_FRAMES, &lo);
    if (n == 0)
        return 0;
    if (kind == OUT_ADDR2LINE) { /* as addr2line: "??" for an unknown file, "?" for an unknown line */
        for (size_t i = 0; i < n; i++) {
            char *dm = fr[i].function ? cplus_demangle(fr[i].function, DMGL_PARAMS | DMGL_ANSI) : NULL;
            printf("%s\n%s:", dm ? dm : fr[i].function ? fr[i].function : "??", fr[i].file ? fr[i].file : "??");
            if (fr[i].line)
                printf("%u\n", fr[i].line);
            else
                printf("?\n");
            free(dm);
        }
        return 1;
    }
    struct tlck_cubin_chain c = { .symbol = (char *)fr[n - 1].function, .offset = pc - lo };
    struct tlck_cubin_frame v[HOST_FRAMES];
    for (size_t i = 0; i < n; i++)
        v[i] = (struct tlck_cubin_frame){ (char *)(fr[i].file ? fr[i].file : "??"), fr[i].line, 0,
                                          (char *)(fr[i].function ? fr[i].function : "??") };
    c.v = v, c.n = n;
    if (kind == OUT_JSON) {
        json_chain(display, "host", asked, &c);
    } else {
        printf("0x%llx (host, %s+0x%llx):\n", (unsigned long long)pc, c.symbol ? c.symbol : "??",
               (unsigned long long)c.offset);
        print_chain(&c);
    }
    return 1;
}

/* One location against the input's images (or its host code): 0 answered, 2 not (said on stderr). */
static int one_location(const char *display, const struct images *im, struct host_side *hs, const char *asked,
                        enum out_kind kind, unsigned sm)
{
    struct location loc;
    if (parse_location(asked, &loc) != 0 || (hs->only && loc.function)) {
        fprintf(stderr, "trueline-check: --symbolize: '%s' is neither KERNEL+0xOFFSET nor a PC%s\n", asked,
                hs->only ? " (in host code: an address)" : "");
        if (kind == OUT_ADDR2LINE)
            printf("??\n??:0\n");
        free(loc.function);
        return 2;
    }
    if (hs->only || (!loc.function && !sm && in_host_code(hs, loc.value))) {
        const struct tlck_host_lines *hl = host_lines(hs);
        int k = hl ? host_answer(display, hl, asked, loc.value, kind) : 0;
        if (!k) {
            if (hl)
                fprintf(stderr, "trueline-check: %s: %s: no function symbol or DWARF at or before that address\n",
                        display, asked);
            else
                fprintf(stderr, "trueline-check: %s: %s: in host code, and %s\n", display, asked, hs->why);
            if (kind == OUT_ADDR2LINE)
                printf("??\n??:0\n");
        }
        return k ? 0 : 2;
    }
    int answered = 0, failed = im->failed;
    for (size_t i = 0; i < im->n; i++) {
        int k = one_image(display, im->v[i].label, im->v[i].bytes, im->v[i].n, &loc, asked, kind);
        if (k < 0)
            failed = 1;
        answered += k > 0;
        if (k > 0 && (!loc.function || kind == OUT_ADDR2LINE))
            break; /* a PC names one image; addr2line output has one answer per location (--sm picks) */
    }
    if (!answered && !failed)
        fprintf(stderr, "trueline-check: %s: %s: %s\n", display, asked,
                im->n == 0 ? (sm ? "no cubin image for that --sm" : "no cubin image")
                           : "no cubin defines that function");
    if (!answered && kind == OUT_ADDR2LINE)
        printf("??\n??:0\n");
    free(loc.function);
    return answered && !failed ? 0 : 2;
}

/* Locations from stdin, one per line (blanks around them ignored, empty lines skipped). */
static int locations_from_stdin(const char *display, const struct images *im, struct host_side *hs,
                                enum out_kind kind, unsigned sm)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int status = 0;
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        char *p = line, *e = line + len;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        while (e > p && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            *--e = 0;
        if (p == e)
            continue;
        if (one_location(display, im, hs, p, kind, sm) != 0)
            status = 2;
        if (kind == OUT_ADDR2LINE)
            fflush(stdout); /* a caller that writes a line and waits for the answer (as with addr2line) */
    }
    free(line);
    return status;
}

static int symbolize_input(const struct tlck_input *in, const struct tlck_options *o)
{
    struct tlck_input_bytes b;
    tl_error err;
    struct tlck_read_ctx ctx;
    tlck_read_ctx_init(&ctx, o);
    if (tlck_input_map(in, &b, &ctx.budget, &err) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
        return 2;
    }
    struct images im = { 0 };
    load_images(in, o, b.data, b.size, &im);
    /* no cubin: the host code, through its DWARF (a file on disk: libdwarf reads it by descriptor) */
    struct host_side hs = { .path = in->path };
    if (im.n == 0 && !im.failed && !o->sm) {
        if (in->is_member || in->pkg_depth) {
            fprintf(stderr, "trueline-check: %s: no cubin image; host code is symbolized in files on disk only\n",
                    in->display);
        } else if (!(hs.hl = tlck_host_lines_open(in->path, &err))) {
            tl_error store_err; /* a stripped file: its debug file in the store, by build-id */
            if (!(hs.hl = tlck_sym_store_host(o, in->path, &store_err)))
                fprintf(stderr, "trueline-check: %s: no cubin image, and %s\n", in->display, store_err.msg);
        }
        if (!hs.hl) {
            images_free(&im);
            tlck_input_unmap(&b);
            return 2;
        }
        hs.only = hs.tried = 1;
    } else if (!o->sm && !in->is_member && !in->pkg_depth) {
        host_code_ranges(&hs, in->display, b.data, b.size);
    }
    enum out_kind kind = o->addr2line ? OUT_ADDR2LINE : tlck_tool_output(o) == TLCK_TOOL_JSON ? OUT_JSON : OUT_TEXT;
    int status = 0;
    int from_stdin = o->nlocations == 0 || (o->nlocations == 1 && strcmp(o->locations[0], "-") == 0);
    if (from_stdin)
        status = locations_from_stdin(in->display, &im, &hs, kind, o->sm);
    for (size_t i = 0; !from_stdin && i < o->nlocations; i++)
        if (one_location(in->display, &im, &hs, o->locations[i], kind, o->sm) != 0)
            status = 2;
    tlck_host_lines_close(hs.hl);
    images_free(&im);
    tlck_input_unmap(&b);
    return status;
}

int tlck_symbolize_operands(struct tlck_options *o)
{
    if (o->ninputs < 1) {
        fprintf(stderr, "trueline-check: --symbolize takes FILE and locations, KERNEL+0xOFFSET or a PC (none or "
                        "'-': one per line on stdin)\n");
        return 2;
    }
    o->locations = o->inputs + 1;
    o->nlocations = o->ninputs - 1;
    o->ninputs = 1;
    return 0;
}

int tlck_tool_symbolize(const struct tlck_options *o)
{
    struct tlck_inputs ins = { .o = o };
    tlck_inputs_expand(&ins, o->inputs, o->ninputs);
    int status = 0;
    for (size_t i = 0; i < ins.n; i++)
        if (symbolize_input(&ins.v[i], o) != 0)
            status = 2;
    if (ins.n == 0)
        status = 2;
    tlck_inputs_free(&ins);
    return status;
}
