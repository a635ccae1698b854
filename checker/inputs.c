#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_formats.h"
#include "inputs_package.h"
#include "model.h"
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

/* The first bytes of path into m; their count, or -1 (errno set) when it cannot be read. */
static ssize_t read_magic(const char *path, unsigned char m[TLCK_FORMAT_HEAD])
{
    memset(m, 0, TLCK_FORMAT_HEAD);
    return tl_read_head(path, m, TLCK_FORMAT_HEAD);
}

/* 1 when path starts like a file trueline-check reads (a row of input_formats.c), 0 when not, -1 (errno set)
 * when it cannot be read: what makes a file found inside a directory worth checking. */
static int interesting_magic(const char *path)
{
    unsigned char m[TLCK_FORMAT_HEAD];
    ssize_t n = read_magic(path, m);
    if (n < 0)
        return -1;
    return tlck_input_format_of(m, (size_t)n) != NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* A Python source distribution (name-version.tar.gz, gzip): sources, no built file to check. */
static int is_sdist(const char *path)
{
    unsigned char m[TLCK_FORMAT_HEAD];
    ssize_t n = (ends_with(path, ".tar.gz") || ends_with(path, ".tgz")) ? read_magic(path, m) : 0;
    return n >= 2 && m[0] == 0x1f && m[1] == 0x8b;
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
        tlck_inputs_add_error(out, path, "cannot read directory: %s", strerror(errno));
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
            tlck_inputs_add_error(out, path, "cannot access: %s", strerror(e));
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
            tlck_inputs_add_error(out, path, "%s", "not a regular file");
        return;
    }
    if (top && is_sdist(path)) {
        tlck_inputs_add_error(out, path, "%s", "a Python source distribution (sdist): it holds sources, no built "
                                               "file to check; check the wheel built from it (pip wheel, python -m "
                                               "build --wheel)");
        return;
    }
    if (!top) {
        /* A symlink to a file inside the same tree would be checked twice: skip links to regular files (counted,
         * so that the summary says what the scan left out). */
        if (is_link) {
            out->skipped_file_links += interesting_magic(path) == 1;
            return;
        }
        if (is_sdist(path)) {
            out->skipped_sdists++;
            return;
        }
        int m = interesting_magic(path);
        if (m < 0)
            tlck_inputs_add_error(out, path, "cannot read: %s", strerror(errno));
        if (m != 1)
            return;
    }
    unsigned char m[TLCK_FORMAT_HEAD];
    ssize_t n = read_magic(path, m);
    const struct tlck_input_format *fmt = n > 0 ? tlck_input_format_of(m, (size_t)n) : NULL;
    if (fmt && fmt->expand) {
        /* A package is judged by its file name (the tag it claims): a link named on the command line is the
         * package it points to, under that package's name, and the user is told so. */
        char *real = top && fmt->magic == tlck_package_magic && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)
                         ? realpath(path, NULL)
                         : NULL;
        const char *b = strrchr(path, '/'), *rb = real ? strrchr(real, '/') : NULL;
        if (real && strcmp(b ? b + 1 : path, rb ? rb + 1 : real) != 0) {
            fprintf(stderr, "trueline-check: %s: a link to the package %s; judged as that file, by its name\n", path,
                    real);
            /* the report says it too (text and JSON), next to the package */
            struct tlck_package_link *l = realloc(out->links, (out->nlinks + 1) * sizeof *l);
            if (l) {
                out->links = l;
                l[out->nlinks].link = strdup(path);
                l[out->nlinks].package = strdup(real);
                if (l[out->nlinks].link && l[out->nlinks].package)
                    out->nlinks++;
                else {
                    free(l[out->nlinks].link);
                    free(l[out->nlinks].package);
                }
            }
        }
        struct tlck_container c = { .path = real ? real : path, .display = real ? real : path, .top = top,
                                     .format_of = tlck_input_format_of };
        fmt->expand(out, &c);
        free(real);
    } else {
        add(out, path, path); /* the loader says what it is, or that it is nothing it reads */
    }
}

void tlck_inputs_expand(struct tlck_inputs *out, const char *const *paths, size_t npaths)
{
    struct visited dirs = { 0 };
    for (size_t i = 0; i < npaths; i++)
        expand_path(out, paths[i], 1, &dirs);
    free(dirs.dev);
    free(dirs.ino);
}

int tlck_inputs_all_packages(const char *const *paths, size_t npaths)
{
    for (size_t i = 0; i < npaths; i++) {
        unsigned char m[TLCK_FORMAT_HEAD];
        struct stat st;
        const char *p = paths[i];
        if (!(ends_with(p, ".whl") || ends_with(p, ".conda") || ends_with(p, ".tar.bz2")) || stat(p, &st) != 0 ||
            !S_ISREG(st.st_mode))
            return 0;
        ssize_t n = read_magic(p, m);
        if (n <= 0 || !tlck_package_magic(m, (size_t)n))
            return 0;
    }
    return npaths > 0;
}

void tlck_package_links_free(struct tlck_package_link *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].link);
        free(l[i].package);
    }
    free(l);
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
    tlck_package_links_free(in->links, in->nlinks);
    memset(in, 0, sizeof *in);
}

int tlck_input_map(const struct tlck_input *in, struct tlck_input_bytes *b, tl_budget *budget, tl_error *err)
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
