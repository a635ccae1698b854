/* --extract DIR: writes every device image out as DIR/<input>.<container>.<entry>.<arch>.{cubin,ptx} so that
 * nvdisasm and cuda-gdb can be used on them.
 *
 * Names come from the input's name (as the user gave it) and numbers only, never from strings inside the
 * binary (identifiers are attacker-controlled); every byte outside [A-Za-z0-9._+-] becomes '_', a leading '.'
 * too, so a name can neither contain '/' nor be "." or "..". Files are created with O_EXCL|O_NOFOLLOW relative
 * to DIR's descriptor: an existing file or a planted symlink is an error, never followed or overwritten. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs.h"
#include "read/device.h"
#include "read/readers.h"
#include "tools/tools.h"

static void sanitize(char *s)
{
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '_' || *p == '-' || *p == '+'))
            *p = '_';
    if (s[0] == '.')
        s[0] = '_';
}

static char *base_name(const char *display)
{
    const char *paren = strchr(display, '(');
    const char *slash = NULL;
    /* "dir/lib.a(member.o)": the slash that matters is before the archive name */
    for (const char *p = display; *p && (!paren || p < paren); p++)
        if (*p == '/')
            slash = p;
    char *b = strdup(slash ? slash + 1 : display);
    if (b) {
        size_t n = strlen(b);
        if (n && b[n - 1] == ')')
            b[n - 1] = 0;
        sanitize(b);
        if (!b[0]) {
            free(b);
            b = strdup("input");
        }
    }
    return b;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int write_image(int dirfd, const char *dir, const char *name, const unsigned char *p, size_t n, int is_ptx)
{
    if (is_ptx) {
        const unsigned char *z = memchr(p, 0, n); /* stored PTX is NUL-terminated and padded (§3.2) */
        if (z)
            n = (size_t)(z - p);
    }
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "trueline-check: %s/%s: cannot create: %s\n", dir, name, strerror(errno));
        return -1;
    }
    int rc = write_all(fd, p, n);
    if (close(fd) != 0 || rc != 0) {
        fprintf(stderr, "trueline-check: %s/%s: write failed: %s\n", dir, name, strerror(errno));
        return -1;
    }
    printf("%s/%s\n", dir, name);
    return 0;
}

static int extract_one(const struct tl_input *in, int dirfd, const struct tl_options *o)
{
    struct tl_input_bytes b;
    tl_error err;
    if (tl_input_map(in, &b, &err) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
        return -1;
    }
    const unsigned char *data = b.data;
    size_t size = b.size;
    struct tl_device_refs refs = { 0 };
    int rc = tl_device_enumerate(in->display, data, size, &refs, &err);
    if (rc != 0)
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
    char *base = base_name(in->display);
    struct tl_fatbin_scratch s = { 0 };
    for (size_t i = 0; i < refs.n; i++) {
        const struct tl_device_ref *r = &refs.v[i];
        const unsigned char *p;
        size_t n;
        int is_ptx = r->fe.kind == TL_FATBIN_KIND_PTX;
        char arch[32], name[512];
        tl_device_entry_arch(arch, sizeof arch, &r->fe);
        if (r->is_cubin_file)
            snprintf(name, sizeof name, "%s.copy.cubin", base);
        else
            snprintf(name, sizeof name, "%s.%s%u.%u.%s.%s", base,
                     r->section && strcmp(r->section, "__nv_relfatbin") == 0 ? "rel" : "", r->fe.container,
                     r->fe.index, arch, is_ptx ? "ptx" : r->fe.kind == TL_FATBIN_KIND_ELF ? "cubin" : "bin");
        if (tl_fatbin_image(&r->fe, &s, tl_device_max_image(o->max_input_mb), &p, &n, &err) != 0) {
            fprintf(stderr, "trueline-check: %s: entry %u of container %u: %s\n", in->display, r->fe.index,
                    r->fe.container, err.msg);
            rc = -1;
            continue;
        }
        if (write_image(dirfd, o->extract_dir, name, p, n, is_ptx) != 0)
            rc = -1;
        tl_fatbin_scratch_shrink(&s);
    }
    tl_fatbin_scratch_free(&s);
    free(base);
    tl_device_refs_free(&refs);
    tl_input_unmap(&b);
    return rc;
}

int tl_tool_extract(const struct tl_options *o)
{
    if (mkdir(o->extract_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "trueline-check: --extract %s: %s\n", o->extract_dir, strerror(errno));
        return 2;
    }
    int dirfd = open(o->extract_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        fprintf(stderr, "trueline-check: --extract %s: %s\n", o->extract_dir, strerror(errno));
        return 2;
    }
    struct tl_inputs ins = { 0 };
    tl_inputs_expand(&ins, o->inputs, o->ninputs);
    int status = 0;
    for (size_t i = 0; i < ins.n; i++)
        if (extract_one(&ins.v[i], dirfd, o) != 0)
            status = 2;
    tl_inputs_free(&ins);
    close(dirfd);
    return status;
}
