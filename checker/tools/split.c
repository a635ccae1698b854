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
#include "report/formats.h"
#include "report/json_write.h"
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

/* What one input gave: the summary line, or one element of --format json's array. */
struct split_result {
    const char *path, *dest;
    const char *status; /* "split", "unchanged" (nothing to split), "error" */
    size_t before, after;
    const char *host_debug; /* the host debug file written, for one ELF file */
    size_t host_parts, device_parts;
    char err[1024];
};

static void emit_text(FILE *out, const struct split_result *r, int in_place)
{
    if (strcmp(r->status, "error") == 0)
        return; /* said on stderr */
    if (strcmp(r->status, "unchanged") == 0) {
        fprintf(out, "%s: no line info to split (%zu bytes, %s)\n", r->path, r->before,
                in_place ? "left as it is" : "copied unchanged");
        return;
    }
    double saved = r->before ? 100.0 * ((double)r->before - (double)r->after) / (double)r->before : 0;
    fprintf(out, "%s: %zu -> %zu bytes (%.1f%% smaller)", r->path, r->before, r->after, saved);
    if (r->host_debug)
        fprintf(out, ", host debug file %s", r->host_debug);
    else if (r->host_parts)
        fprintf(out, ", %zu host debug files", r->host_parts);
    fprintf(out, ", %zu device line parts\n", r->device_parts);
}

static void emit_json(struct tlck_jw *w, const struct split_result *r)
{
    tlck_jw_break(w, "\n  ");
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "file", r->path);
    tlck_jw_str(w, "status", r->status);
    if (strcmp(r->status, "error") == 0) {
        tlck_jw_str(w, "error", r->err);
    } else {
        tlck_jw_str(w, "output", r->dest);
        tlck_jw_uint(w, "bytes_before", r->before);
        tlck_jw_uint(w, "bytes_after", r->after);
        tlck_jw_str(w, "host_debug_file", r->host_debug);
        tlck_jw_uint(w, "host_parts", r->host_debug ? 1 : r->host_parts);
        tlck_jw_uint(w, "device_parts", r->device_parts);
    }
    tlck_jw_end(w);
}

/* One input: 0 split (or nothing to split), 2 with the reason on stderr; r filled for the summary. */
static int split_input(const struct tlck_options *o, const char *path, struct split_result *r, char *dest,
                       size_t destlen, char *host_debug, size_t hdlen)
{
    char *err = r->err;
    const size_t errsz = sizeof r->err;
    r->path = path, r->status = "error";
    unsigned char *p = NULL;
    size_t n = 0;
    mode_t mode = 0644;
    if (read_whole(path, &p, &n, &mode, err, errsz) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        return 2;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *real = o->in_place ? realpath(path, NULL) : NULL; /* a link: the file it names is replaced */
    if (o->in_place)
        snprintf(dest, destlen, "%s", real ? real : path);
    else
        snprintf(dest, destlen, "%s/%s", o->output_dir, base);
    free(real);
    r->path = path, r->dest = dest, r->status = "error", r->before = n;
    struct tlck_split_opts so = { .store = o->debug_store, .device_only = o->split_device_only };
    enum tl_file_kind kind = tl_sniff(p, n, NULL);
    int is_pkg = kind == TL_FILE_UNKNOWN && ((n >= 4 && memcmp(p, "PK\3\4", 4) == 0 && ends_with(path, ".whl")) ||
                                             (n >= 3 && memcmp(p, "BZh", 3) == 0 && ends_with(path, ".tar.bz2")));
    if (kind != TL_FILE_ELF && kind != TL_FILE_AR && !is_pkg) {
        snprintf(err, errsz, "not an ELF file (executable, shared library, object), a static library, a wheel or a conda .tar.bz2: "
                             "nothing to split");
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        free(p);
        return 2;
    }
    struct tlck_atomic a;
    if (tlck_atomic_open(&a, dest, 0, err, errsz) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        free(p);
        return 2;
    }
    int rc;
    struct tlck_split_stats st;
    struct tlck_package_split_stats ps = { 0 };
    struct tlck_archive_split_stats as = { 0 };
    if (is_pkg)
        rc = tlck_split_package(path, p, n, &so, a.fd, &ps, err, errsz);
    else if (kind == TL_FILE_AR)
        rc = tlck_split_archive(path, p, n, &so, a.fd, &as, err, errsz);
    else
        rc = tlck_split_elf(path, p, n, &so, a.fd, &st, err, errsz);
    if (rc < 0) {
        tlck_atomic_abort(&a);
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        free(p);
        return 2;
    }
    if (rc == 1) { /* nothing to split: the shipped copy is the input */
        tlck_atomic_abort(&a);
        if (!o->in_place && tlck_atomic_write(dest, p, n, mode, 0, err, errsz) != 0) {
            fprintf(stderr, "trueline-check: %s: %s\n", path, err);
            free(p);
            return 2;
        }
        r->status = "unchanged", r->after = n;
        free(p);
        return 0;
    }
    struct stat ost;
    size_t after = fstat(a.fd, &ost) == 0 ? (size_t)ost.st_size : 0;
    if (tlck_atomic_commit(&a, mode, err, errsz) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", path, err);
        free(p);
        return 2;
    }
    r->status = "split", r->after = after;
    if (is_pkg) {
        r->host_parts = ps.host_parts, r->device_parts = ps.device_parts;
    } else if (kind == TL_FILE_AR) {
        r->device_parts = as.device_parts;
    } else {
        r->device_parts = st.device_parts;
        if (st.host_part) {
            snprintf(host_debug, hdlen, "%s", st.host_debug);
            r->host_debug = host_debug;
        }
    }
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
    /* two inputs with one file name would write one destination twice: refused before anything is written */
    for (size_t i = 0; o->output_dir && i < o->ninputs; i++)
        for (size_t j = 0; j < i; j++) {
            const char *a = strrchr(o->inputs[i], '/'), *b = strrchr(o->inputs[j], '/');
            if (strcmp(a ? a + 1 : o->inputs[i], b ? b + 1 : o->inputs[j]) == 0) {
                fprintf(stderr, "trueline-check: %s and %s: the same file name in --output-dir %s\n", o->inputs[j],
                        o->inputs[i], o->output_dir);
                return 2;
            }
        }
    int json = tlck_tool_output(o) == TLCK_TOOL_JSON, rc = 0; /* text or json: main.c checked it */
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "trueline-check: %s: cannot write\n", o->output);
        return 2;
    }
    struct tlck_jw w;
    tlck_jw_init(&w, out, 0);
    if (json)
        tlck_jw_array(&w, NULL);
    for (size_t i = 0; i < o->ninputs; i++) {
        struct split_result r = { 0 };
        char dest[4096], host_debug[4096];
        if (split_input(o, o->inputs[i], &r, dest, sizeof dest, host_debug, sizeof host_debug) != 0)
            rc = 2;
        if (json)
            emit_json(&w, &r);
        else
            emit_text(out, &r, o->in_place);
        fflush(out);
    }
    if (json) {
        tlck_jw_break(&w, "\n");
        tlck_jw_end(&w);
        fputc('\n', out);
    }
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "trueline-check: %s: cannot write\n", o->output);
        rc = 2;
    }
    return rc;
}
