/* The source lines of a resolved PC: the image in the core first (relocated: looked up by PC), then, when
 * that image has no line info, the same kernel in the --binary artifacts (looked up by function + offset),
 * then the source text under --source-dir. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/coredump/coredump_binary.h"
#include "tools/coredump/coredump_report.h"
#include "tools/coredump/coredump_store.h"
#include "read/store_lookup.h"

void cd_frames_free(struct cd_where *w)
{
    for (size_t i = 0; i < w->nframes; i++) {
        free(w->frames[i].file);
        free(w->frames[i].function);
        free(w->frames[i].source);
    }
    free(w->frames);
    w->frames = NULL;
    w->nframes = 0;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void cd_lines_copy(struct cd_where *to, const struct cd_where *from)
{
    cd_frames_free(to);
    to->frames = from->nframes ? calloc(from->nframes, sizeof *to->frames) : NULL;
    for (size_t i = 0; to->frames && i < from->nframes; i++) {
        const struct cd_frame *f = &from->frames[i];
        to->frames[i] = (struct cd_frame){ .file = dup_or_null(f->file), .line = f->line, .column = f->column,
                                           .function = dup_or_null(f->function), .source = dup_or_null(f->source) };
        to->nframes++;
    }
    free(to->line_origin);
    free(to->line_note);
    to->line_origin = dup_or_null(from->line_origin);
    to->line_note = dup_or_null(from->line_note);
}

static char *read_line_of(const char *path, uint32_t line)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL, *out = NULL;
    size_t cap = 0;
    uint32_t at = 0;
    while (getline(&buf, &cap, f) >= 0)
        if (++at == line) {
            buf[strcspn(buf, "\r\n")] = 0;
            out = strdup(buf);
            break;
        }
    free(buf);
    fclose(f);
    return out;
}

/* The recorded path (often a build machine's, e.g. /opt/trueline-demo/oob.cu) under --source-dir: the whole
 * path, then ever shorter tails of it, down to the base name; without --source-dir the recorded path itself. */
static char *source_text(const char *dir, const char *file, uint32_t line)
{
    if (!file || !line)
        return NULL;
    if (!dir)
        return read_line_of(file, line);
    for (const char *tail = file; tail; tail = strchr(tail, '/')) {
        while (*tail == '/')
            tail++;
        if (!*tail)
            break;
        size_t n = strlen(dir) + strlen(tail) + 2;
        char *p = malloc(n);
        if (!p)
            return NULL;
        snprintf(p, n, "%s/%s", dir, tail);
        char *s = read_line_of(p, line);
        free(p);
        if (s)
            return s;
    }
    return NULL;
}

static void set_note(struct cd_where *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_note(struct cd_where *w, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(w->line_note);
    w->line_note = strdup(buf);
}

static int lines_from_core(struct cd_images *im, const struct tlck_options *o, struct cd_where *w)
{
    const tl_elf *e = cd_image_elf(im, w->module);
    if (!e) {
        set_note(w, "the device image in the core is not a readable ELF");
        return -1;
    }
    if (!tl_elf_section(e, ".debug_line", NULL)) {
        set_note(w, "no line info in this image (it has no .debug_line)");
        return -1;
    }
    if (tlck_cubin_lines_split(e)) { /* shipped without its line info: the debug store has it */
        char note[6144];
        if (cd_lines_from_store(o, w, note, sizeof note) == 0)
            return 0;
        set_note(w, "%s", note);
        return -1;
    }
    tl_error err;
    int rc = cd_chain_lookup(w->module->image, w->module->image_n, "device image", w->mangled,
                             w->offset - (w->offset >= w->line_bias ? w->line_bias : 0), w->pc, w, &err);
    if (rc == 0) {
        w->line_origin = strdup("core");
        return 0;
    }
    if (rc == 1)
        set_note(w, "the image's line table has no row at this PC");
    else
        set_note(w, "line table of the image in the core: %s", err.msg);
    return -1;
}

void cd_resolve_lines(struct cd_images *im, const struct tlck_options *o, struct cd_where *w)
{
    if (!w->found)
        return;
    if (lines_from_core(im, o, w) != 0) {
        for (size_t i = 0; i < o->nbinaries && !w->nframes; i++)
            cd_lines_from_binary(o->binaries[i], w);
        if (!w->nframes) {
            char *n = w->line_note;
            w->line_note = NULL;
            if (o->nbinaries)
                set_note(w, "%s; nothing has line info for this kernel: rebuilding through trueline-cc guarantees it",
                         n ? n : "");
            else
                set_note(w, "%s; pass --binary with the .so/executable (or Triton cache directory) that shipped the "
                         "kernel, or rebuild through trueline-cc, which guarantees line info", n ? n : "");
            free(n);
        }
    }
    for (size_t i = 0; i < w->nframes; i++)
        w->frames[i].source = source_text(o->source_dir, w->frames[i].file, w->frames[i].line);
}
