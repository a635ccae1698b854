/* --split: what ships without line info, the line info into a debug store (docs/split.md).
 *
 * Each input is read whole, split in memory (checker/split/) and written atomically: a temporary file beside
 * the destination, renamed over it once complete. The store's parts are written first, each atomically too, so
 * that a shipped file never exists whose line info the store lacks; a failure leaves the input and the
 * destination as they were (the store may keep parts of a build that was not shipped: they are keyed by
 * content, and harmless). One input's failure is reported (exit 2) and the next input still split. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "split/archive_split.h"
#include "split/elf_split.h"
#include "split/package_split.h"
#include "split/store_write.h"
#include "tools/tools.h"
#include "trueline/file_kind.h"
#include "trueline/files.h"

static int read_whole(const char *path, unsigned char **p, size_t *n, mode_t *mode, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "not a regular file");
        return -1;
    }
    *n = (size_t)st.st_size;
    *mode = st.st_mode & 07777;
    *p = malloc(*n ? *n : 1);
    size_t got = 0;
    while (*p && got < *n) {
        ssize_t r = read(fd, *p + got, *n - got);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    if (!*p || got != *n) {
        snprintf(err, errlen, "cannot read: %s", *p ? strerror(errno) : "out of memory");
        free(*p);
        *p = NULL;
        return -1;
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void print_summary(const char *path, size_t before, size_t after, const char *host_debug, size_t host_parts,
                          size_t device_parts)
{
    double saved = before ? 100.0 * ((double)before - (double)after) / (double)before : 0;
    printf("%s: %zu -> %zu bytes (%.1f%% smaller)", path, before, after, saved);
    if (host_debug)
        printf(", host debug file %s", host_debug);
    else if (host_parts)
        printf(", %zu host debug files", host_parts);
    printf(", %zu device line parts\n", device_parts);
}

/* One input: 0 split (or nothing to split), 2 with the reason on stderr. */
static int split_input(const struct tlck_options *o, const char *path)
{
    char err[1024] = "", dest[4096];
    unsigned char *p = NULL;
    size_t n = 0;
    mode_t mode = 0644;
    if (read_whole(path, &p, &n, &mode, err, sizeof err) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        return 2;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (o->in_place)
        snprintf(dest, sizeof dest, "%s", path);
    else
        snprintf(dest, sizeof dest, "%s/%s", o->output_dir, base);
    struct tlck_split_opts so = { .store = o->debug_store, .device_only = o->split_device_only };
    enum tl_file_kind kind = tl_sniff(p, n, NULL);
    int is_pkg = kind == TL_FILE_UNKNOWN && n >= 4 && memcmp(p, "PK\3\4", 4) == 0 && ends_with(path, ".whl");
    if (kind != TL_FILE_ELF && kind != TL_FILE_AR && !is_pkg) {
        fprintf(stderr, "trueline-check: %s: not an ELF file (executable, shared library, object), a static "
                        "library or a wheel: nothing to split\n", path);
        free(p);
        return 2;
    }
    struct tlck_atomic a;
    if (tlck_atomic_open(&a, dest, 0, err, sizeof err) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        free(p);
        return 2;
    }
    int rc;
    struct tlck_split_stats st;
    struct tlck_package_split_stats ps = { 0 };
    struct tlck_archive_split_stats as = { 0 };
    if (is_pkg)
        rc = tlck_split_package(path, p, n, &so, a.fd, &ps, err, sizeof err);
    else if (kind == TL_FILE_AR)
        rc = tlck_split_archive(path, p, n, &so, a.fd, &as, err, sizeof err);
    else
        rc = tlck_split_elf(path, p, n, &so, a.fd, &st, err, sizeof err);
    if (rc < 0) {
        tlck_atomic_abort(&a);
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        free(p);
        return 2;
    }
    if (rc == 1) { /* nothing to split: the shipped copy is the input */
        tlck_atomic_abort(&a);
        if (!o->in_place && tlck_atomic_write(dest, p, n, mode, 0, err, sizeof err) != 0) {
            fprintf(stderr, "trueline-check: %s: %s\n", path, err);
            free(p);
            return 2;
        }
        printf("%s: no line info to split (%zu bytes, copied unchanged)\n", path, n);
        free(p);
        return 0;
    }
    struct stat ost;
    size_t after = fstat(a.fd, &ost) == 0 ? (size_t)ost.st_size : 0;
    if (tlck_atomic_commit(&a, mode, err, sizeof err) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        free(p);
        return 2;
    }
    if (is_pkg)
        print_summary(path, n, after, NULL, ps.host_parts, ps.device_parts);
    else if (kind == TL_FILE_AR)
        print_summary(path, n, after, NULL, 0, as.device_parts);
    else
        print_summary(path, n, after, st.host_part ? st.host_debug : NULL, 0, st.device_parts);
    free(p);
    return 0;
}

int tlck_tool_split(const struct tlck_options *o)
{
    if (!o->debug_store) {
        fprintf(stderr, "trueline-check: --split needs --debug-store STORE (where the line info goes)\n");
        return 2;
    }
    if (!o->output_dir == !o->in_place) {
        fprintf(stderr, "trueline-check: --split needs either --output-dir DIR or --in-place\n");
        return 2;
    }
    if (tl_mkdirs(o->debug_store, 0755) != 0) {
        fprintf(stderr, "trueline-check: --debug-store %s: cannot create the directory: %s\n", o->debug_store,
                strerror(errno));
        return 2;
    }
    if (o->output_dir && tl_mkdirs(o->output_dir, 0755) != 0) {
        fprintf(stderr, "trueline-check: --output-dir %s: cannot create the directory: %s\n", o->output_dir,
                strerror(errno));
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; i < o->ninputs; i++)
        if (split_input(o, o->inputs[i]) != 0)
            rc = 2;
    fflush(stdout);
    return rc;
}
