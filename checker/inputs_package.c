#include "inputs_package.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_formats.h"
#include "member_spill.h"
#include "model.h"
#include "package_codec.h"
#include "read/read_ctx.h"
#include "trueline/elf_file.h"
#include "trueline/file_kind.h"
#include "trueline/limits.h"
#include "zip_directory.h"

/* archive.h leaves its errno values to the platform: on Linux an unrecognized format is EILSEQ, "misc" is -1. */
#define PKG_ERRNO_FILE_FORMAT EILSEQ
#define PKG_ERRNO_MISC (-1)

int tlck_package_magic(const unsigned char *m, size_t n)
{
    if (n >= 4 && m[0] == 'P' && m[1] == 'K' && ((m[2] == 3 && m[3] == 4) || (m[2] == 5 && m[3] == 6)))
        return 1;
    return n >= 4 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h' && m[3] >= '1' && m[3] <= '9';
}

/* 1 when the first bytes start a zstd frame: conda's pkg-*.tar.zst, a package no row of input_formats.c claims. */
static int zstd_magic(const unsigned char *m, size_t n)
{
    return n >= 4 && m[0] == 0x28 && m[1] == 0xB5 && m[2] == 0x2F && m[3] == 0xFD;
}

/* by_directory: the package is a zip whose central directory and local headers agree (zip_directory.h), read by
 * its central directory as pip reads it, never by libarchive's fallback to the local headers. Otherwise a tar
 * stream, a nested package (a stream cannot seek to its directory) or a zip without a central directory. */
static struct archive *reader_new(int by_directory)
{
    struct archive *a = archive_read_new();
    if (!a)
        return NULL;
    if (by_directory) {
        archive_read_support_format_zip_seekable(a);
        return a;
    }
    /* the codecs packages come in (conda's .tar.bz2 and tar.zst, a nested .tar.gz or .tar.xz), not all of
     * libarchive's: its .lzma and .lzip decoders allocate the dictionary a header declares, unbounded (a
     * 125-byte input asked for 2.4 GB), and no package format uses them */
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_filter_xz(a); /* liblzma's decoder under libarchive's 1 GiB limit */
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    return a;
}

static const char *why(struct archive *a)
{
    const char *s = a ? archive_error_string(a) : NULL;
    return s ? s : "unreadable";
}

/* The current member of a package as a stream, for libarchive to read a nested package from: the bytes read
 * ahead to learn what the member is come first, then the rest, decompressed chunk by chunk. */
struct member_stream {
    struct archive *a;
    unsigned char head[TLCK_FORMAT_HEAD]; /* what input_formats.c's rows tell a format by */
    size_t nhead, given;
    int failed; /* the first bytes could not be decompressed */
    unsigned char buf[65536];
};

static void peek(struct member_stream *s)
{
    while (s->nhead < sizeof s->head) {
        la_ssize_t k = archive_read_data(s->a, s->head + s->nhead, sizeof s->head - s->nhead);
        s->failed = k < 0;
        if (k <= 0)
            break;
        s->nhead += (size_t)k;
    }
}

static la_ssize_t member_read(struct archive *inner, void *ud, const void **out)
{
    struct member_stream *s = ud;
    if (s->given < s->nhead) {
        *out = s->head + s->given;
        size_t k = s->nhead - s->given;
        s->given = s->nhead;
        return (la_ssize_t)k;
    }
    la_ssize_t k = archive_read_data(s->a, s->buf, sizeof s->buf);
    if (k < 0) {
        archive_set_error(inner, PKG_ERRNO_MISC, "%s", why(s->a));
        return -1;
    }
    *out = s->buf;
    return k;
}

static int open_nested(struct archive *inner, struct member_stream *s)
{
    return archive_read_open(inner, s, NULL, member_read, NULL);
}

/* The reader the members of one package (or of one nested package) share between their loads: a tar stream
 * (.tar.bz2, conda's tar.zst) can only be read front to back, so reopening it for each member would decompress
 * the package once per member. Workers take it in turn; members are loaded about in input order, so it mostly
 * moves forward, and a member behind it reopens the package. Only the member being read is held. */
struct tlck_package_cursor {
    pthread_mutex_t lock;
    struct archive *a, *inner;
    struct member_stream *s;
    int by_directory;       /* how the package itself is read: reader_new */
    int nested_zip;         /* the nested package is a zip, decompressed whole (nested): 1 read by its central
                             * directory, 2 from its local headers (it has no end record) */
    struct tlck_input_bytes nested;
    size_t next;            /* ordinal of the entry the next header read returns, in the innermost archive */
    unsigned long long src; /* compressed bytes of the innermost package, for the ratio bound */
    /* The member whose windows are inputs of their own (a static archive's members): its bytes, kept until the
     * last of its windows is read, so that it is decompressed once, not once per window. */
    struct tlck_input_bytes kept;
    size_t kept_index, kept_left;
    unsigned long long given; /* what the members read through it decompressed to, together (member_bound) */
    unsigned ratio_max;       /* the highest ratio of their codecs */
    /* The package's clock, kept by the cursor of its top level (root; NULL in that one): --timeout bounds a
     * package with all its members, from the first of them loaded. */
    struct tlck_package_cursor *root;
    int started;
    struct timespec deadline;
};

/* Releases bytes read_all gave (the heap, or a mapped temporary file), as tlck_input_unmap does; inputs.c is not
 * linked from here (it expands packages through this file). */
static void bytes_release(struct tlck_input_bytes *b)
{
    tl_unmap_file(b->map, b->map_len);
    free(b->owned);
    memset(b, 0, sizeof *b);
}

static void cursor_close(struct tlck_package_cursor *c)
{
    if (c->inner)
        archive_read_free(c->inner);
    if (c->a)
        archive_read_free(c->a);
    free(c->s);
    bytes_release(&c->nested);
    c->a = c->inner = NULL;
    c->s = NULL;
    c->next = 0;
}

static void cursor_drop_kept(struct tlck_package_cursor *c)
{
    bytes_release(&c->kept);
    c->kept_left = 0;
}

void tlck_package_cursor_free(struct tlck_package_cursor *c)
{
    if (!c)
        return;
    cursor_close(c);
    cursor_drop_kept(c);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static struct tlck_package_cursor *cursor_new(struct tlck_inputs *out, int by_directory, int nested_zip,
                                              struct tlck_package_cursor *root)
{
    struct tlck_package_cursor *c = calloc(1, sizeof *c);
    if (!c || tlck_grow((void **)&out->cursors, &out->ccap, out->ncursors + 1, sizeof *out->cursors) != 0) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->by_directory = by_directory;
    c->nested_zip = nested_zip;
    c->root = root;
    out->cursors[out->ncursors++] = c;
    return c;
}

void tlck_package_deadline(const struct tlck_input *in, tl_budget *budget)
{
    struct tlck_package_cursor *c = in->cursor;
    if (!c || !budget->seconds)
        return;
    struct tlck_package_cursor *r = c->root ? c->root : c;
    pthread_mutex_lock(&r->lock);
    if (!r->started) {
        r->started = 1;
        r->deadline = budget->deadline; /* the first member's, which starts now */
    }
    budget->deadline = r->deadline;
    pthread_mutex_unlock(&r->lock);
    budget->deadline_origin = "--timeout, which bounds a package with all its members";
}

static void add_member_error(struct tlck_inputs *out, const char *display, const char *path, char *msg)
{
    struct tlck_input *in = tlck_inputs_add(out, display, path);
    if (in)
        in->error = msg ? msg : strdup("unreadable");
    else
        free(msg);
}

/* Packages are read this many levels deep: the package and one package inside it (conda's pkg-*.tar.zst, a wheel
 * inside a zip); an input finds its bytes by one entry of each (tlck_input.pkg_index). */
#define PKG_MAX_DEPTH 2

/* What listing one package shares across its levels: the read context whose budget bounds what the listing
 * decompresses (a static archive is read whole to list its members; all of them together count) and whose
 * deadline bounds its time, the members counted so far (an archive's members count too), and whether a bound
 * stopped it. */
struct lister {
    struct tlck_inputs *out;
    const char *path;
    const struct tlck_input_format *(*format_of)(const unsigned char *m, size_t n); /* the caller's dispatch */
    struct tlck_read_ctx ctx;
    int by_directory; /* the package is read by its central directory (reader_new); -1: not at all (zip_verdict) */
    int nested_zip;   /* the package inside it being listed is a zip: as tlck_package_cursor.nested_zip */
    size_t members;
    int stopped;
    struct tlck_package_cursor *root; /* the top level's cursor, which keeps the package's clock */
};

/* Where read_all may put a member's bytes: the heap only, a mapped temporary file past tlck_spill_threshold(), or
 * that file always (a zip inside a package, held while its members are read). */
enum spill { SPILL_NEVER, SPILL_LARGE, SPILL_ALWAYS };

static int read_all(struct archive *a, struct archive_entry *e, unsigned long long src, unsigned long long before,
                    unsigned seen, tl_budget *budget, const unsigned char *pre, size_t npre, enum spill may_spill,
                    struct tlck_input_bytes *b, tl_error *err);

/* A package member that is a container of another format (a static archive): its bytes are decompressed whole,
 * bounded by the package's budget, and handed to that format's row, as a file named on the command line is; its
 * members are inputs that find those bytes again through `where` (the package's entries and reader). */
static void expand_member(struct lister *L, const struct tlck_input_format *fmt, struct member_stream *s,
                          struct archive_entry *e, unsigned long long src, const char *disp, struct tlck_input *where)
{
    struct tlck_input_bytes b = { 0 };
    tl_error err;
    if (L->members >= TLCK_PACKAGE_MAX_MEMBERS) { /* no room left: max_members 0 would mean no bound */
        add_member_error(L->out, disp, L->path, tlck_asprintf("more than %u members in the package; this archive "
                                                            "is not checked", TLCK_PACKAGE_MAX_MEMBERS));
        L->stopped = 1;
        return;
    }
    /* read_all counts it in the listing's budget, and it stays counted: the package's static archives together
     * are bounded, as one input's sections are */
    if (read_all(s->a, e, src, 0, 0, &L->ctx.budget, s->head, s->nhead, SPILL_NEVER, &b, &err) != 0) {
        add_member_error(L->out, disp, L->path, strdup(err.msg));
        bytes_release(&b);
        return;
    }
    struct tlck_container c = { .path = L->path, .display = disp, .data = b.data, .size = b.size,
                                .origin = where, .max_members = TLCK_PACKAGE_MAX_MEMBERS - L->members,
                                .format_of = L->format_of };
    size_t first = L->out->n, windows = 0;
    fmt->expand(L->out, &c);
    for (size_t k = first; k < L->out->n; k++)
        windows += L->out->v[k].is_member && !L->out->v[k].error;
    for (size_t k = first; k < L->out->n; k++)
        L->out->v[k].pkg_windows = windows;
    L->members += L->out->n - first; /* a member after these, if any, is the one beyond the bound */
    bytes_release(&b);
}

/* The first member of the package s streams that trueline-check would read (a row of input_formats.c knows its
 * bytes, or it is a package in turn), as a copy; NULL when none (a jar of class files, a zip of data, a zstd blob
 * that is no package) or no memory. Entries are read front to back, bounded by the package's deadline. */
static char *deep_member_read(struct lister *L, struct member_stream *s)
{
    struct archive *inner = reader_new(0);
    struct archive_entry *e;
    struct member_stream *m = calloc(1, sizeof *m);
    char *found = NULL;
    if (inner && m && open_nested(inner, s) == ARCHIVE_OK)
        while (!found && !tl_budget_expired(&L->ctx.budget) && archive_read_next_header(inner, &e) >= ARCHIVE_WARN) {
            if (archive_entry_filetype(e) != AE_IFREG)
                continue;
            memset(m, 0, sizeof *m);
            m->a = inner;
            peek(m);
            if ((L->format_of && L->format_of(m->head, m->nhead)) || zstd_magic(m->head, m->nhead))
                found = strdup(archive_entry_pathname(e) ? archive_entry_pathname(e) : "?");
        }
    free(m);
    if (inner)
        archive_read_free(inner);
    return found;
}

/* The rest of the current member of a compressed stream (a tar.bz2, conda's tar.zst), read in chunks rather
 * than skipped by libarchive in one call: skipping decompresses it all the same, and this way the deadline is
 * looked at while it does, and so is what the stream has given against its compressed bytes (src) at the
 * codec's ratio. 0, or -1 with err saying which bound. A zip's members are skipped by seeking: nothing to do. */
static int drain(struct lister *L, struct archive *a, struct member_stream *s, unsigned long long src, tl_error *err)
{
    if (archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE)
        return 0;
    const struct tlck_member_codec *codec = tlck_member_codec(a);
    size_t bound = tl_decompress_bound((size_t)src, codec->ratio);
    for (;;) {
        if (tl_budget_check(&L->ctx.budget, err) != 0)
            return -1;
        unsigned long long given = (unsigned long long)archive_filter_bytes(a, 0);
        if (given > bound)
            return tl_fail(err, "the package decompresses to %llu bytes or more, more than its %llu compressed "
                           "bytes can honestly give (%s, %u:1): a decompression bomb", given, src, codec->name,
                           codec->ratio);
        if (archive_read_data(a, s->buf, sizeof s->buf) <= 0)
            return 0; /* the end of the member, or an error the next header read reports */
    }
}

/* Whether a zip is read by its central directory (1), from its local headers (0: it has no end record), not at
 * all (-1: its views disagree, or they could not be compared) or has nothing to read (2: an empty zip), by what
 * zip_directory.h found (v, problem, freed here); 0 and -1 are named as an error of `display`. */
static int zip_verdict(struct tlck_inputs *out, const char *display, const char *path, enum tlck_zip_view v,
                       char *problem)
{
    const char *say = problem ? problem : "(no memory to say more)";
    int r = -1;
    switch (v) {
    case TLCK_ZIP_AGREES:
        r = 1;
        break;
    case TLCK_ZIP_EMPTY:
        r = 2;
        break;
    case TLCK_ZIP_NO_END_RECORD:
        add_member_error(out, display, path,
                         strdup("the zip's central directory is missing or cut short (pip cannot install it); its "
                                "members were read from their local headers"));
        r = 0;
        break;
    case TLCK_ZIP_DISAGREES:
        add_member_error(out, display, path, tlck_asprintf("ambiguous zip (pip reads its central directory, a "
                                                           "streaming reader its local headers): %s; none of its "
                                                           "members is checked", say));
        break;
    case TLCK_ZIP_UNCOMPARED:
        add_member_error(out, display, path, tlck_asprintf("cannot compare the zip's central directory with its "
                                                           "local headers: %s; none of its members is checked", say));
        break;
    }
    free(problem);
    return r;
}

static int zip_reading(struct tlck_inputs *out, const char *path, const tl_budget *budget)
{
    char *problem = NULL;
    enum tlck_zip_view v = tlck_zip_directory_check(path, budget, &problem);
    return zip_verdict(out, path, path, v, problem);
}

static void list(struct lister *L, struct archive *a, const char *prefix, int depth, size_t outer,
                 unsigned long long src, int named);

/* 1 when the bytes start as a zip does (a local header, or the end record of an empty zip). */
static int starts_zip(const unsigned char *m, size_t n)
{
    return n >= 4 && m[0] == 'P' && m[1] == 'K' && ((m[2] == 3 && m[3] == 4) || (m[2] == 5 && m[3] == 6));
}

/* A zip inside the package (a wheel in a zip): pip reads its central directory as it reads the package's, so it
 * is compared with its local headers as the package is, on its bytes decompressed whole (a large one into a
 * mapped temporary file, member_spill.h), and listed from them by its central directory; its members are read
 * the same way when they are loaded (cursor_open). Entry `outer` of the package, `src` compressed bytes. */
static void list_nested_zip(struct lister *L, struct member_stream *s, struct archive_entry *e, const char *disp,
                            size_t outer, unsigned long long src)
{
    struct tlck_input_bytes b = { 0 };
    tl_error err;
    if (read_all(s->a, e, src, 0, 0, &L->ctx.budget, s->head, s->nhead, SPILL_ALWAYS, &b, &err) != 0) {
        add_member_error(L->out, disp, L->path, strdup(err.msg));
        return;
    }
    char *problem = NULL;
    enum tlck_zip_view v = tlck_zip_memory_check(b.data, b.size, &L->ctx.budget, &problem);
    int by_directory = zip_verdict(L->out, disp, L->path, v, problem);
    struct archive *inner = by_directory == 0 || by_directory == 1 ? reader_new(by_directory) : NULL;
    if (by_directory < 0 || by_directory == 2) {
        /* named already, or nothing in it */
    } else if (inner && archive_read_open_memory(inner, b.data, b.size) == ARCHIVE_OK) {
        L->nested_zip = by_directory ? 1 : 2;
        list(L, inner, disp, 1, outer, (unsigned long long)b.size, 0);
        L->nested_zip = 0;
    } else {
        add_member_error(L->out, disp, L->path, tlck_asprintf("cannot read the nested package: %s", why(inner)));
    }
    if (inner)
        archive_read_free(inner);
    bytes_release(&b);
}

/* Lists one package (depth 0) or a package inside it (depth 1, entry `outer` of the package at path, `src`
 * compressed bytes). */
static void list(struct lister *L, struct archive *a, const char *prefix, int depth, size_t outer,
                 unsigned long long src, int named)
{
    struct tlck_inputs *out = L->out;
    const char *path = L->path;
    struct archive_entry *e;
    struct tlck_package_cursor *cursor = NULL; /* made with the first member read again when loaded */
    tl_error err;
    for (size_t i = 0; !L->stopped; i++) {
        if (tl_budget_check(&L->ctx.budget, &err) != 0) {
            add_member_error(out, prefix, path, tlck_asprintf("%s; the members after its member %zu are not "
                                                              "checked", err.msg, i));
            L->stopped = 1;
            return;
        }
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            return;
        if (r < ARCHIVE_WARN) {
            if (i == 0 && !named && archive_errno(a) == PKG_ERRNO_FILE_FORMAT)
                return; /* found by its magic, but not a package libarchive reads (a .bz2 log, a zstd blob) */
            add_member_error(out, prefix, path,
                             i ? tlck_asprintf("cannot read the package past its member %zu: %s; the members after "
                                             "it are not checked", i, why(a))
                               : tlck_asprintf("cannot read the package: %s", why(a)));
            return;
        }
        if (archive_entry_filetype(e) != AE_IFREG)
            continue;
        /* counted when a member beyond the bound is actually there: exactly the bound is within it */
        if (L->members >= TLCK_PACKAGE_MAX_MEMBERS) {
            add_member_error(out, prefix, path, tlck_asprintf("more than %u members; the rest are not checked",
                                                            TLCK_PACKAGE_MAX_MEMBERS));
            L->stopped = 1;
            return;
        }
        L->members++;
        const char *name = archive_entry_pathname(e);
        char *disp = tlck_asprintf("%s!%s", prefix, name ? name : "?");
        struct member_stream *s = disp ? calloc(1, sizeof *s) : NULL;
        if (!s) {
            free(disp);
            return;
        }
        s->a = a;
        peek(s);
        /* what it is, by the rows that tell command-line files apart */
        const struct tlck_input_format *fmt = L->format_of ? L->format_of(s->head, s->nhead) : NULL;
        int package = zstd_magic(s->head, s->nhead) || (fmt && fmt->expand == tlck_package_expand);
        /* where its bytes are found again when it, or a member of it, is loaded */
        struct tlck_input where = { .pkg_depth = depth + 1 };
        where.pkg_index[0] = depth ? outer : i;
        where.pkg_index[1] = depth ? i : 0;
        if (s->failed && s->nhead < 4) {
            /* what it is cannot be told: it may be a library, so it is not passed over in silence */
            add_member_error(out, disp, path, tlck_asprintf("cannot decompress the member: %s", why(a)));
        } else if (package && depth + 1 < PKG_MAX_DEPTH && starts_zip(s->head, s->nhead)) {
            list_nested_zip(L, s, e, disp, i, src);
        } else if (package && depth + 1 < PKG_MAX_DEPTH) {
            struct archive *inner = reader_new(0);
            unsigned long long isrc = archive_entry_size_is_set(e) ? (unsigned long long)archive_entry_size(e) : src;
            if (inner && open_nested(inner, s) == ARCHIVE_OK)
                list(L, inner, disp, depth + 1, i, isrc, 0);
            else
                add_member_error(out, disp, path, tlck_asprintf("cannot read the nested package: %s", why(inner)));
            if (inner)
                archive_read_free(inner);
        } else if (package) {
            /* a jar or a zip of data three levels down holds nothing to check: only one that does is named */
            char *example = deep_member_read(L, s);
            if (example)
                add_member_error(out, disp, path,
                                 tlck_asprintf("a package inside a package inside a package, holding files to check "
                                               "(%s): packages are read %d levels deep; its members are not "
                                               "checked", example, PKG_MAX_DEPTH));
            free(example);
        } else if (fmt && (fmt->load || fmt->expand)) {
            if (!cursor)
                cursor = depth ? cursor_new(out, L->by_directory, L->nested_zip, L->root) : L->root;
            where.cursor = cursor;
            if (!cursor) {
                add_member_error(out, disp, path, strdup("no memory for a package reader"));
            } else if (fmt->load) {
                struct tlck_input *in = tlck_inputs_add(out, disp, path);
                if (in) {
                    in->cursor = where.cursor;
                    in->pkg_depth = where.pkg_depth;
                    in->pkg_index[0] = where.pkg_index[0];
                    in->pkg_index[1] = where.pkg_index[1];
                }
            } else {
                expand_member(L, fmt, s, e, src, disp, &where);
            }
        }
        if (!L->stopped && drain(L, a, s, src, &err) != 0) {
            add_member_error(out, disp, path, tlck_asprintf("%s; the members after it are not checked", err.msg));
            L->stopped = 1;
        }
        free(s);
        free(disp);
    }
}

/* 1 when the file starts as a zip does (starts_zip). */
static int starts_like_zip(const char *path)
{
    unsigned char m[4] = { 0 };
    FILE *fp = fopen(path, "rb");
    int zip = fp && fread(m, 1, 4, fp) == 4 && starts_zip(m, 4);
    if (fp)
        fclose(fp);
    return zip;
}

void tlck_package_expand(struct tlck_inputs *out, const struct tlck_container *c)
{
    const char *path = c->path;
    int named = c->top;
    if (c->data) { /* the package reader lists the packages inside it itself (list), streaming them */
        add_member_error(out, c->display, path, strdup("a package read from memory is not supported"));
        return;
    }
    struct lister *L = calloc(1, sizeof *L);
    if (!L) {
        add_member_error(out, path, path, strdup("no memory for a package reader"));
        return;
    }
    L->out = out;
    L->path = path;
    L->format_of = c->format_of;
    tlck_read_ctx_init(&L->ctx, out->o);
    /* a zip is read as pip reads it, by its central directory; where its local headers say otherwise, which of
     * them an installer or a reader takes is the author's choice: the package is an error, none of it read */
    L->by_directory = starts_like_zip(path) ? zip_reading(out, path, &L->ctx.budget) : 0;
    L->root = cursor_new(out, L->by_directory, 0, NULL); /* keeps the package's clock (tlck_package_deadline) */
    struct archive *a = L->by_directory == 0 || L->by_directory == 1 ? reader_new(L->by_directory) : NULL;
    struct stat st;
    if (L->by_directory < 0 || L->by_directory == 2) {
        /* named already, or nothing in it */
    } else if (!a || stat(path, &st) != 0 || archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        /* libarchive learns the format on open: a scan's .bz2 log or stray zip-like file is not an input */
        if (named || !a || archive_errno(a) != PKG_ERRNO_FILE_FORMAT)
            add_member_error(out, path, path, tlck_asprintf("cannot read the package: %s", why(a)));
    } else {
        list(L, a, path, 0, 0, (unsigned long long)st.st_size, named);
    }
    if (a)
        archive_read_free(a);
    free(L);
}

/* Moves a to its entry `index`; returns the entry or NULL (err says why). */
static struct archive_entry *seek_entry(struct archive *a, size_t index, const tl_budget *budget, tl_error *err)
{
    struct archive_entry *e = NULL;
    for (size_t i = 0; i <= index; i++) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            return tl_fail(err, "the package no longer holds this member"), NULL;
        if (r < ARCHIVE_WARN)
            return tl_fail(err, "cannot read the package: %s", why(a)), NULL;
        if (tl_budget_check(budget, err) != 0)
            return NULL;
    }
    return e;
}

/* What bounds one member: what the budget leaves (--max-input-mb); what the compressed bytes holding it can
 * honestly give at its codec's ratio; and what is left of what they can give all the package's members together,
 * after the members read before it, at the highest ratio of the codecs seen (members of an honest archive lie
 * in disjoint compressed bytes, so together they cannot pass it; members sharing their bytes can). */
struct member_bound {
    size_t limit;                  /* the budget's cap */
    const char *limit_origin;      /* the option that set it */
    size_t cap;                    /* the lowest of the three */
    int which;                     /* 0: the budget, 1: the member's own ratio, 2: the members' together */
    const struct tlck_member_codec *codec;
    unsigned together;             /* the ratio the members together are held to */
    unsigned long long src;        /* compressed bytes holding the package's members */
    unsigned long long before;     /* bytes its members decompressed to before this one */
};

static void member_bound(struct archive *a, unsigned long long src, unsigned long long before, unsigned seen,
                         size_t limit, struct member_bound *m)
{
    m->limit = limit;
    m->limit_origin = "--max-input-mb";
    m->codec = tlck_member_codec(a);
    m->together = seen > m->codec->ratio ? seen : m->codec->ratio;
    m->src = src;
    m->before = before;
    size_t own = tl_decompress_bound((size_t)src, m->codec->ratio);
    size_t all = tl_decompress_bound((size_t)src, m->together);
    all = before < all ? all - (size_t)before : 0;
    m->cap = limit;
    m->which = 0;
    if (own < m->cap) {
        m->cap = own;
        m->which = 1;
    }
    if (all < m->cap) {
        m->cap = all;
        m->which = 2;
    }
}

static int over(tl_error *err, unsigned long long size, const struct member_bound *m)
{
    if (m->which == 0)
        return tl_fail(err, "member decompresses to %llu bytes or more, over the bound of %zu MiB (%s)", size,
                       m->cap >> 20, m->limit_origin);
    if (m->which == 2)
        return tl_fail(err, "member decompresses to %llu bytes or more after the package's members before it gave "
                       "%llu: more than the %llu compressed bytes holding them can honestly give (%u:1): members "
                       "sharing their bytes, a decompression bomb", size, m->before, m->src, m->together);
    return tl_fail(err, "member decompresses to %llu bytes or more, more than the %llu compressed bytes holding it "
                   "can honestly give (%s, %u:1): a decompression bomb", size, m->src, m->codec->name,
                   m->codec->ratio);
}

/* Decompresses the current member into an unlinked temporary file and maps it (member_spill.h), under the
 * same bounds as read_all. */
static int spill_all(struct archive *a, const struct member_bound *m, const tl_budget *budget,
                     const unsigned char *pre, size_t npre, struct tlck_input_bytes *b, tl_error *err)
{
    int fd = tlck_spill_open(err);
    if (fd < 0)
        return -1;
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    size_t len = npre;
    if (!buf) {
        close(fd);
        return tl_fail(err, "no memory for a member's buffer");
    }
    if (tlck_spill_write(fd, pre, npre, err) != 0)
        goto fail;
    for (;;) {
        la_ssize_t k = archive_read_data(a, buf, CHUNK);
        if (k == 0)
            break;
        if (k < 0) {
            tl_fail(err, "cannot decompress the member: %s", why(a));
            goto fail;
        }
        if ((size_t)k > m->cap - len) {
            over(err, (unsigned long long)len + (size_t)k, m);
            goto fail;
        }
        if (tlck_spill_write(fd, buf, (size_t)k, err) != 0)
            goto fail;
        len += (size_t)k;
        if (tl_budget_check(budget, err) != 0)
            goto fail;
    }
    free(buf);
    return tlck_spill_map(fd, len, b, err);
fail:
    free(buf);
    close(fd);
    return -1;
}

/* A member's buffer is an anonymous mapping of its own, not malloc's: glibc raises its mmap threshold to the
 * size of a freed mapped chunk (up to 32 MiB), after which members of 20 MiB came from the heap and stayed
 * resident after their input was done (a wheel of 21-26 MiB libraries: max RSS 82 MB instead of 44 MB). It is
 * anonymous, so the device reader never drops its pages (device.c: read-only file mappings only). */
static unsigned char *buf_map(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static unsigned char *buf_grow(unsigned char *p, size_t old, size_t n)
{
    void *q = mremap(p, old ? old : 1, n, MREMAP_MAYMOVE);
    return q == MAP_FAILED ? NULL : q;
}

/* Reads the current member of a whole into an anonymous mapping in b->map (its first npre bytes, read already,
 * are pre), bounded by the budget's cap and the codec's ratio (`before`: what the package's members read
 * earlier gave, counted against the same compressed bytes); a member declaring more than tlck_spill_threshold()
 * bytes goes to a mapped temporary file instead where may_spill. A member in memory is taken from the budget
 * (and so from the run's, tl_pool) as its buffer grows; the input gives it back when it is done. */
static int read_all(struct archive *a, struct archive_entry *e, unsigned long long src, unsigned long long before,
                    unsigned seen, tl_budget *budget, const unsigned char *pre, size_t npre, enum spill may_spill,
                    struct tlck_input_bytes *b, tl_error *err)
{
    struct member_bound m;
    member_bound(a, src, before, seen, budget ? budget->cap : TL_BUDGET_DEFAULT, &m);
    if (budget && budget->cap_origin)
        m.limit_origin = budget->cap_origin;
    unsigned long long declared = archive_entry_size_is_set(e) ? (unsigned long long)archive_entry_size(e) : 0;
    if (declared > m.cap)
        return over(err, declared, &m);
    if (may_spill == SPILL_ALWAYS || (may_spill == SPILL_LARGE && declared > tlck_spill_threshold()))
        return spill_all(a, &m, budget, pre, npre, b, err);
    size_t len = npre, alloc = declared > npre ? (size_t)declared : 65536;
    /* the buffer is counted as it is allocated: what three workers hold at once is what the run's budget sees */
    if (tl_budget_take(budget, "a package member", 0, alloc, 0, err) != 0)
        return -1;
    size_t taken = alloc;
    unsigned char *buf = buf_map(alloc);
    int rc = -1;
    if (!buf) {
        tl_fail(err, "no memory for a member of %zu bytes", alloc);
        goto out;
    }
    if (npre)
        memcpy(buf, pre, npre);
    for (;;) {
        unsigned char probe[4096];
        size_t room = alloc - len;
        /* at most 1 MiB a call: archive_read_data fills what it is given, block after block, and the deadline is
         * looked at between calls; a full buffer reads on into a probe first, so that a member whose declared
         * size was right ends without a larger buffer (and a larger share of the budget) asked for nothing */
        la_ssize_t k = archive_read_data(a, room ? buf + len : probe, room ? (room < (1u << 20) ? room : 1u << 20)
                                                                           : sizeof probe);
        if (k < 0) {
            tl_fail(err, "cannot decompress the member: %s", why(a));
            goto out;
        }
        if (tl_budget_check(budget, err) != 0)
            goto out;
        if (k == 0)
            break;
        if (room) {
            len += (size_t)k;
            continue;
        }
        if (alloc >= m.cap || (size_t)k > m.cap - alloc) {
            over(err, (unsigned long long)alloc + (size_t)k, &m);
            goto out;
        }
        size_t grown = alloc > m.cap / 2 ? m.cap : alloc * 2;
        if (grown < alloc + (size_t)k)
            grown = alloc + (size_t)k;
        if (tl_budget_take(budget, "a package member", 0, grown - alloc, 0, err) != 0)
            goto out;
        taken += grown - alloc;
        unsigned char *nb = buf_grow(buf, alloc, grown);
        if (!nb) {
            tl_fail(err, "no memory for a member of %zu bytes", grown);
            goto out;
        }
        buf = nb;
        alloc = grown;
        memcpy(buf + len, probe, (size_t)k);
        len += (size_t)k;
    }
    b->map = buf;
    b->map_len = alloc ? alloc : 1;
    b->data = buf;
    b->size = len;
    buf = NULL;
    rc = 0;
    tl_budget_give(budget, taken - len); /* what the member holds counts, not what growing it asked for */
    return rc;
out:
    if (buf)
        munmap(buf, alloc ? alloc : 1);
    tl_budget_give(budget, taken);
    return rc;
}

/* Opens c on the package (depth 1) or on the nested package that is entry outer of it (depth 2). */
static int cursor_open(struct tlck_package_cursor *c, const struct tlck_input *in, tl_budget *budget,
                       tl_error *err)
{
    struct stat st;
    if (stat(in->path, &st) != 0)
        return tl_fail(err, "cannot access the package");
    c->a = reader_new(c->by_directory);
    if (!c->a)
        return tl_fail(err, "no memory for a package reader");
    if (archive_read_open_filename(c->a, in->path, 65536) != ARCHIVE_OK)
        return tl_fail(err, "cannot read the package: %s", why(c->a));
    c->src = (unsigned long long)st.st_size;
    if (in->pkg_depth == 1)
        return 0;
    struct archive_entry *e = seek_entry(c->a, in->pkg_index[0], budget, err);
    if (!e)
        return -1;
    if (c->nested_zip) { /* as list_nested_zip listed it: decompressed whole, read by its central directory */
        if (read_all(c->a, e, c->src, 0, 0, budget, NULL, 0, SPILL_ALWAYS, &c->nested, err) != 0)
            return -1;
        c->src = c->nested.size;
        c->inner = reader_new(c->nested_zip == 1);
        if (!c->inner)
            return tl_fail(err, "no memory for a package reader");
        if (archive_read_open_memory(c->inner, c->nested.data, c->nested.size) != ARCHIVE_OK)
            return tl_fail(err, "cannot read the nested package: %s", why(c->inner));
        return 0;
    }
    if (archive_entry_size_is_set(e))
        c->src = (unsigned long long)archive_entry_size(e);
    c->s = calloc(1, sizeof *c->s);
    c->inner = c->s ? reader_new(0) : NULL;
    if (!c->inner)
        return tl_fail(err, "no memory for a package reader");
    c->s->a = c->a;
    if (open_nested(c->inner, c->s) != ARCHIVE_OK)
        return tl_fail(err, "cannot read the nested package: %s", why(c->inner));
    return 0;
}

/* The window of the kept member that `in` is, copied into b (the window is all the input owns). */
static int kept_window(struct tlck_package_cursor *c, const struct tlck_input *in, struct tlck_input_bytes *b,
                       tl_error *err)
{
    if (in->offset > c->kept.size || in->size > c->kept.size - in->offset)
        return tl_fail(err, "archive member extends past the end of the archive");
    unsigned char *copy = malloc(in->size ? in->size : 1);
    if (!copy)
        return tl_fail(err, "no memory for a member of %zu bytes", in->size);
    memcpy(copy, c->kept.data + in->offset, in->size);
    b->owned = copy;
    b->data = copy;
    b->size = in->size;
    if (c->kept_left && --c->kept_left == 0)
        cursor_drop_kept(c);
    return 0;
}

/* Back to the first member of a nested zip held whole: it is reopened where it lies, not decompressed again. */
static int rewind_nested(struct tlck_package_cursor *c, tl_error *err)
{
    archive_read_free(c->inner);
    c->inner = reader_new(c->nested_zip == 1);
    c->next = 0;
    if (!c->inner)
        return tl_fail(err, "no memory for a package reader");
    if (archive_read_open_memory(c->inner, c->nested.data, c->nested.size) != ARCHIVE_OK)
        return tl_fail(err, "cannot read the nested package: %s", why(c->inner));
    return 0;
}

static int cursor_read(struct tlck_package_cursor *c, const struct tlck_input *in, tl_budget *budget,
                       struct tlck_input_bytes *b,
                       tl_error *err)
{
    size_t want = in->pkg_index[in->pkg_depth - 1];
    if (in->is_member && c->kept.data && c->kept_index == want)
        return kept_window(c, in, b, err);
    if (c->a && c->next > want && c->nested.data && rewind_nested(c, err) != 0)
        return -1;
    if (c->a && c->next > want)
        cursor_close(c);
    if (!c->a && cursor_open(c, in, budget, err) != 0)
        return -1;
    struct archive *a = c->inner ? c->inner : c->a;
    struct archive_entry *e = seek_entry(a, want - c->next, budget, err);
    if (!e)
        return -1;
    c->next = want + 1;
    /* A member whose windows are inputs (a static archive) is kept in memory for them. */
    unsigned ratio = tlck_member_codec(a)->ratio;
    if (read_all(a, e, c->src, c->given, c->ratio_max, budget, NULL, 0, in->is_member ? SPILL_NEVER : SPILL_LARGE,
                 b, err) != 0)
        return -1;
    c->given += b->size;
    if (ratio > c->ratio_max)
        c->ratio_max = ratio;
    if (!in->is_member)
        return 0;
    cursor_drop_kept(c);
    c->kept = *b;
    c->kept_index = want;
    c->kept_left = in->pkg_windows;
    memset(b, 0, sizeof *b);
    return kept_window(c, in, b, err);
}

int tlck_package_member_read(const struct tlck_input *in, struct tlck_input_bytes *b, tl_budget *budget,
                             tl_error *err)
{
    struct tlck_package_cursor *c = in->cursor;
    if (!c)
        return tl_fail(err, "no memory for a package reader");
    pthread_mutex_lock(&c->lock);
    int rc = cursor_read(c, in, budget, b, err);
    if (rc != 0)
        cursor_close(c); /* where it stopped is unknown: the next member reopens the package */
    pthread_mutex_unlock(&c->lock);
    return rc;
}
