/* --symbolize FILE KERNEL+0xOFFSET | PC [--sm N]: source position with the full inline chain, innermost first,
 * for one SASS offset — what `nvdisasm -gi` prints next to that instruction, without disassembling.
 *
 * FILE may be a cubin, a fatbin or a host ELF carrying fatbins. Every cubin image (restricted to --sm N when
 * given) that defines the function is answered; a PC is looked up in the single image --sm selects (or the only
 * cubin). The core is tlck_cubin_symbolize (read/cubin_lines.h), shared with --coredump. */
#include <demangle.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "read/cubin.h"
#include "read/cubin_lines.h"
#include "read/device.h"
#include "report/json_write.h"
#include "tools/tools.h"

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
static void json_chain(const char *display, const char *label, const struct tlck_cubin_chain *c)
{
    struct tlck_jw w;
    tlck_jw_init(&w, stdout, 0);
    tlck_jw_object(&w, NULL);
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

/* Returns 1 when answered, 0 when this image does not define the function, -1 on error. */
static int one_image(const char *display, const char *label, const unsigned char *p, size_t n,
                     const struct location *loc, int json)
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
    if (json) {
        json_chain(display, label, &c); /* frames [] when the offset has no line row */
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
    if (tlck_cubin_summarize(p, n, display, &img) == 0) {
        tlck_device_arch_name(arch, sizeof arch, img.dev.sm, img.dev.arch_suffix, 0);
        tlck_device_label(label, cap, r, r->fe.container, r->fe.index, arch);
    }
    tlck_image_free(&img);
}

static int symbolize_input(const struct tlck_input *in, const struct tlck_options *o, const struct location *loc)
{
    struct tlck_input_bytes b;
    tl_error err;
    if (tlck_input_map(in, &b, &err) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
        return 2;
    }
    const unsigned char *data = b.data;
    size_t size = b.size;
    struct tlck_device_refs refs = { 0 };
    if (tlck_device_enumerate(in->display, data, size, &refs, &err) != 0)
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
    struct tlck_fatbin_scratch s = { 0 };
    int answered = 0, failed = 0, candidates = 0;
    for (size_t i = 0; i < refs.n; i++) {
        const struct tlck_device_ref *r = &refs.v[i];
        if (r->fe.kind != TLCK_FATBIN_KIND_ELF || (o->sm && !r->is_cubin_file && r->fe.arch != o->sm))
            continue;
        candidates++;
        const unsigned char *p;
        size_t n;
        char label[96], arch[32];
        tlck_device_entry_arch(arch, sizeof arch, &r->fe); /* only ELF entries get here: never virtual */
        tlck_device_label(label, sizeof label, r, r->fe.container, r->fe.index, arch);
        if (tlck_fatbin_image(&r->fe, &s, tlck_device_max_image(o->max_input_mb), &p, &n, &err) != 0) {
            fprintf(stderr, "trueline-check: %s: %s: %s\n", in->display, label, err.msg);
            failed = 1;
            continue;
        }
        if (r->is_cubin_file) /* no fatbin entry to name the arch: the cubin's own header does (as --list) */
            cubin_file_label(in->display, p, n, r, label, sizeof label);
        int k = one_image(in->display, label, p, n, loc, o->format && strcmp(o->format, "json") == 0);
        if (k < 0)
            failed = 1;
        answered += k > 0;
        if (!loc->function && k > 0)
            break; /* a PC names one image */
    }
    if (!answered && !failed)
        fprintf(stderr, "trueline-check: %s: %s\n", in->display,
                candidates == 0 ? "no cubin image (for that --sm)" : "no cubin defines that function");
    tlck_fatbin_scratch_free(&s);
    tlck_device_refs_free(&refs);
    tlck_input_unmap(&b);
    return answered && !failed ? 0 : 2;
}

int tlck_tool_symbolize(const struct tlck_options *o)
{
    struct location loc;
    if (parse_location(o->location, &loc) != 0) {
        fprintf(stderr, "trueline-check: --symbolize: '%s' is neither KERNEL+0xOFFSET nor a PC\n", o->location);
        return 2;
    }
    struct tlck_inputs ins = { 0 };
    tlck_inputs_expand(&ins, o->inputs, o->ninputs);
    int status = 0;
    for (size_t i = 0; i < ins.n; i++)
        if (symbolize_input(&ins.v[i], o, &loc) != 0)
            status = 2;
    tlck_inputs_free(&ins);
    free(loc.function);
    return status;
}
