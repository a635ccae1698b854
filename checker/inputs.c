#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs_package.h"
#include "model.h"
#include "thin_archive.h"
#include "trueline/elf_file.h"
#include "trueline/file_kind.h"

struct visited {
    dev_t *dev;
    ino_t *ino;
    size_t n, cap, capi;
};

static struct tlck_input *add(struct tlck_inputs *out, const char *display, const char *path)
{
    return tlck_inputs_add(out, display, path);
}

static void add_error(struct tlck_inputs *out, const char *path, const char *fmt, const char *detail)
{
    struct tlck_input *in = add(out, path, path);
    if (in)
        in->error = tlck_asprintf(fmt, detail);
}

/* The first bytes of path into m; their count, or -1 (errno set) when it cannot be read. */
static ssize_t read_magic(const char *path, unsigned char m[TL_SNIFF_BYTES])
{
    memset(m, 0, TL_SNIFF_BYTES);
    return tl_read_head(path, m, TL_SNIFF_BYTES);
}

static int ar_magic(const unsigned char *m, size_t n)
{
    return tl_sniff(m, n, NULL) == TL_FILE_AR;
}

static int thin_magic(const unsigned char *m, size_t n)
{
    return tl_sniff(m, n, NULL) == TL_FILE_THIN_AR;
}

static void expand_archive(struct tlck_inputs *out, const char *path);
static void expand_thin_archive(struct tlck_inputs *out, const char *path);
static void expand_archive_input(struct tlck_inputs *out, const char *path, int top)
{
    expand_archive(out, path);
}
static void expand_thin_input(struct tlck_inputs *out, const char *path, int top)
{
    expand_thin_archive(out, path);
}

/* Files that expand into several inputs, told by their first bytes: a new container format is a file of its
 * own plus one row here. */
static const struct container_format {
    int (*magic)(const unsigned char *m, size_t n);
    void (*expand)(struct tlck_inputs *out, const char *path, int top); /* top: named on the command line */
} containers[] = {
    { ar_magic, expand_archive_input },      /* static libraries: members are windows of the file (libelf) */
    { thin_magic, expand_thin_input },       /* GNU thin archives: members in files of their own */
    { tlck_package_magic, tlck_package_expand }, /* wheels, zips, conda packages: members decompressed (libarchive) */
};

static const struct container_format *container_of(const unsigned char *m, size_t n)
{
    for (size_t i = 0; i < sizeof containers / sizeof containers[0]; i++)
        if (containers[i].magic(m, n))
            return &containers[i];
    return NULL;
}

/* Magic numbers that make a file worth checking when found inside a directory. */
/* 1 when path starts like a file trueline-check reads, 0 when not, -1 (errno set) when it cannot be read. */
static int interesting_magic(const char *path)
{
    unsigned char m[TL_SNIFF_BYTES];
    ssize_t n = read_magic(path, m);
    if (n < 0)
        return -1;
    enum tl_file_kind k = tl_sniff(m, (size_t)n, NULL);
    if (k == TL_FILE_ELF || k == TL_FILE_FATBIN)
        return 1;
    return container_of(m, (size_t)n) != NULL;
}

/* Each member of a thin archive is an input of its own, read from its file and shown as ARCHIVE(MEMBER). */
static void expand_thin_archive(struct tlck_inputs *out, const char *path)
{
    struct tlck_input_bytes b = { 0 };
    struct tlck_input whole = { .path = (char *)path };
    struct tlck_thin_members mem = { 0 };
    tl_error err;
    int rc = tlck_input_map(&whole, &b, NULL, &err);
    if (rc == 0)
        rc = tlck_thin_archive_read(path, b.data, b.size, &mem, &err);
    for (size_t i = 0; i < mem.n; i++) {
        char *disp = tlck_asprintf("%s(%s)", path, mem.v[i].name);
        add(out, disp ? disp : path, mem.v[i].path);
        free(disp);
    }
    if (rc != 0)
        add_error(out, path, "%s", err.msg);
    tlck_thin_members_free(&mem);
    tlck_input_unmap(&b);
}

/* libelf clips a member whose header size runs past the end of the archive to what is there, silently; the size
 * field (decimal, bytes 48..57 of the 60-byte header before the member) still says how much was promised. */
static int member_truncated(const char *ar_base, const char *mbase, size_t msize)
{
    if (mbase - ar_base < 68)
        return 0;
    char field[11];
    memcpy(field, mbase - 60 + 48, 10);
    field[10] = 0;
    char *end;
    unsigned long long declared = strtoull(field, &end, 10);
    return end != field && declared > msize;
}

/* Archive members via libelf's ar support: each member's bytes are a window of the archive file. */
static void expand_archive(struct tlck_inputs *out, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        add_error(out, path, "cannot open: %s", strerror(errno));
        return;
    }
    elf_version(EV_CURRENT);
    Elf *ar = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!ar || elf_kind(ar) != ELF_K_AR) {
        add_error(out, path, "not a valid archive: %s", elf_errmsg(-1));
        if (ar)
            elf_end(ar);
        close(fd);
        return;
    }
    size_t ar_size = 0;
    const char *ar_base = elf_rawfile(ar, &ar_size);
    Elf *m;
    Elf_Cmd cmd = ELF_C_READ_MMAP;
    size_t members = 0, end = 8; /* end: just past the last member libelf could read */
    while ((m = elf_begin(fd, cmd, ar)) != NULL) {
        Elf_Arhdr *h = elf_getarhdr(m);
        size_t msize = 0;
        const char *mbase = elf_rawfile(m, &msize);
        if (mbase && ar_base)
            end = (size_t)(mbase - ar_base) + msize + (msize & 1);
        if (h && h->ar_name[0] == '/' && mbase && ar_base && member_truncated(ar_base, mbase, msize)) {
            /* the symbol or long-name table: clipped, every member after it is gone (libelf reads none) */
            add_error(out, path, "the archive's %s table is cut short: its header declares more bytes than the "
                      "archive holds; the members after it are not checked",
                      strcmp(h->ar_name, "//") == 0 ? "long-name" : "symbol");
            members++;
        } else if (h && h->ar_name[0] != '/' && mbase && ar_base && member_truncated(ar_base, mbase, msize)) {
            char *disp = tlck_asprintf("%s(%s)", path, h->ar_name);
            add_error(out, disp ? disp : path, "%s", "archive member is cut short: its header declares more bytes than the archive holds");
            free(disp);
            members++;
        } else if (h && h->ar_name[0] != '/' && mbase && ar_base) {
            char *disp = tlck_asprintf("%s(%s)", path, h->ar_name);
            struct tlck_input *in = add(out, disp ? disp : path, path);
            free(disp);
            if (in) {
                in->is_member = 1;
                in->offset = (size_t)(mbase - ar_base);
                in->size = msize;
            }
            members++;
        }
        cmd = elf_next(m);
        elf_end(m);
    }
    /* libelf stops at the first member header it cannot parse and the members after it silently vanish: say so.
     * (Reaching the end also leaves an error set, "offset out of range", so only a stop short of the end counts;
     * elf_errno() clears the error, so it is read once.) Trailing newline padding is fine. */
    int e = elf_errno();
    while (ar_base && end < ar_size && ar_base[end] == '\n')
        end++;
    if (ar_base && end < ar_size) {
        char *why = tlck_asprintf("bad archive member header at offset %zu: %s%s", end,
                                e ? elf_errmsg(e) : "not a valid member", members ? "; the members after it are not checked" : "");
        add_error(out, path, "%s", why ? why : "bad archive member header");
        free(why);
    }
    elf_end(ar);
    close(fd);
}

static int seen_before(struct visited *v, const struct stat *st)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->dev[i] == st->st_dev && v->ino[i] == st->st_ino)
            return 1;
    size_t c1 = v->cap, c2 = v->capi;
    if (tlck_grow((void **)&v->dev, &c1, v->n + 1, sizeof *v->dev) != 0 ||
        tlck_grow((void **)&v->ino, &c2, v->n + 1, sizeof *v->ino) != 0)
        return 1;
    v->cap = c1;
    v->capi = c2;
    v->dev[v->n] = st->st_dev;
    v->ino[v->n++] = st->st_ino;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void expand_path(struct tlck_inputs *out, const char *path, int top, struct visited *dirs);

/* CMake's compiler probes: CMakeFiles/<cmake version>/ (CompilerIdC*, CMakeDetermineCompilerABI_*.bin) and the
 * try_compile scratch directories. CMake builds them with the bare compiler, before any launcher applies, to
 * learn what the compiler is; they are not the project's artifacts. */
static int cmake_probe_dir(const char *path)
{
    const char *name = strrchr(path, '/');
    if (!name || name == path)
        return 0;
    const char *parent = name - 1;
    while (parent > path && parent[-1] != '/')
        parent--;
    if ((size_t)(name - parent) != 10 || strncmp(parent, "CMakeFiles", 10) != 0)
        return 0;
    name++;
    if (strcmp(name, "CMakeScratch") == 0 || strcmp(name, "CMakeTmp") == 0)
        return 1;
    int digits = 0, dots = 0;
    for (const char *p = name; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p == '.')
            dots++;
        else
            return 0;
    }
    return digits && dots;
}

/* Files a directory scan would have checked under path (ELF, archives, fatbins), for the summary's count. */
static size_t count_checkable(const char *path, int depth)
{
    DIR *d = depth < 16 ? opendir(path) : NULL;
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *p = tlck_asprintf("%s/%s", path, de->d_name);
        struct stat st;
        if (p && lstat(p, &st) == 0)
            n += S_ISDIR(st.st_mode) ? count_checkable(p, depth + 1) : S_ISREG(st.st_mode) && interesting_magic(p) == 1;
        free(p);
    }
    closedir(d);
    return n;
}

static void expand_dir(struct tlck_inputs *out, const char *path, struct visited *dirs)
{
    DIR *d = opendir(path);
    if (!d) {
        add_error(out, path, "cannot read directory: %s", strerror(errno));
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (tlck_grow((void **)&names, &cap, n + 1, sizeof *names) == 0)
            names[n++] = tlck_asprintf("%s/%s", path, de->d_name);
    }
    closedir(d);
    if (n) /* an empty directory has no array: qsort must not see NULL */
        qsort(names, n, sizeof *names, by_name); /* deterministic order whatever readdir returns */
    for (size_t i = 0; i < n; i++) {
        if (names[i])
            expand_path(out, names[i], 0, dirs);
        free(names[i]);
    }
    free(names);
}

static void expand_path(struct tlck_inputs *out, const char *path, int top, struct visited *dirs)
{
    struct stat st, lst;
    if (stat(path, &st) != 0) {
        int e = errno;
        /* a dangling symlink inside a tree is not an input; anything else that cannot be reached there (a name
         * over PATH_MAX, a directory without search permission, a link loop) is an input not checked: say so */
        if (top || !(e == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)))
            add_error(out, path, "cannot access: %s", strerror(e));
        return;
    }
    int is_link = !top && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (S_ISDIR(st.st_mode) && is_link && !out->follow_symlinks) {
        out->skipped_links++; /* a link to / would scan the whole file system */
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        if (!top && cmake_probe_dir(path)) {
            out->skipped_probes += count_checkable(path, 0);
            return;
        }
        if (!seen_before(dirs, &st))
            expand_dir(out, path, dirs);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        if (top)
            add_error(out, path, "%s", "not a regular file");
        return;
    }
    if (!top) {
        /* A symlink to a file inside the same tree would be checked twice: skip links to regular files. */
        if (is_link)
            return;
        int m = interesting_magic(path);
        if (m < 0)
            add_error(out, path, "cannot read: %s", strerror(errno));
        if (m != 1)
            return;
    }
    unsigned char m[TL_SNIFF_BYTES];
    ssize_t n = read_magic(path, m);
    const struct container_format *c = n > 0 ? container_of(m, (size_t)n) : NULL;
    if (c)
        c->expand(out, path, top);
    else
        add(out, path, path);
}

void tlck_inputs_expand(struct tlck_inputs *out, const char *const *paths, size_t npaths)
{
    struct visited dirs = { 0 };
    for (size_t i = 0; i < npaths; i++)
        expand_path(out, paths[i], 1, &dirs);
    free(dirs.dev);
    free(dirs.ino);
}

void tlck_inputs_free(struct tlck_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        free(in->v[i].display);
        free(in->v[i].path);
        free(in->v[i].error);
    }
    free(in->v);
    for (size_t i = 0; i < in->ncursors; i++)
        tlck_package_cursor_free(in->cursors[i]);
    free(in->cursors);
    memset(in, 0, sizeof *in);
}

int tlck_input_map(const struct tlck_input *in, struct tlck_input_bytes *b, const tl_budget *budget, tl_error *err)
{
    memset(b, 0, sizeof *b);
    if (in->error)
        return tl_fail(err, "%s", in->error);
    if (in->pkg_depth)
        return tlck_package_member_read(in, b, budget, err);
    if (tl_map_file(in->path, &b->data, &b->size, &b->map, &b->map_len, err) != 0)
        return -1;
    if (in->is_member) {
        if (in->offset > b->size || in->size > b->size - in->offset) {
            tlck_input_unmap(b);
            return tl_fail(err, "archive member extends past the end of the archive");
        }
        b->data += in->offset;
        b->size = in->size;
    }
    return 0;
}

void tlck_input_unmap(struct tlck_input_bytes *b)
{
    tl_unmap_file(b->map, b->map_len);
    free(b->owned);
    memset(b, 0, sizeof *b);
}
