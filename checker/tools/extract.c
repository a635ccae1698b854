/* --extract DIR: writes every device image out as DIR/<input>.<container>.<entry>.<arch>.{cubin,ptx} so that
 * nvdisasm and cuda-gdb can be used on them.
 *
 * Names come from the input's name (as the user gave it) and numbers only, never from strings inside the
 * binary (identifiers are attacker-controlled); every byte outside [A-Za-z0-9._+-] becomes '_', a leading '.'
 * too, so a name can neither contain '/' nor be "." or "..". <input> is the file name, or the whole path when
 * another input of the run has the same file name; what still repeats gets ~2, ~3... ('~' is never left in a
 * sanitized name), so that no two images of one run get the same name. Files are created with
 * O_EXCL|O_NOFOLLOW relative to DIR's descriptor: an existing file or a planted symlink is an error, never
 * followed or overwritten. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trueline/files.h"
#include "inputs.h"
#include "read/device.h"
#include "read/read_ctx.h"
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

/* Longest <input> part kept (its tail, the file name's end): with "~N" and ".rel<c>.<e>.<arch>.cubin" a name
 * stays under NAME_MAX (255) */
#define BASE_MAX 200

/* The <input> part from the input's display name: the whole of it, or only what follows its last '/' before an
 * archive member's '(' ("dir/lib.a(m.o)" gives "lib.a(m.o"); the member's ')' dropped; sanitized. */
static char *flat_name(const char *display, int whole)
{
    const char *paren = strchr(display, '(');
    const char *start = display;
    for (const char *p = display; !whole && *p && (!paren || p < paren); p++)
        if (*p == '/')
            start = p + 1;
    size_t n = strlen(start);
    if (n && start[n - 1] == ')')
        n--;
    if (n > BASE_MAX) {
        start += n - BASE_MAX;
        n = BASE_MAX;
    }
    char *b = strndup(start, n);
    if (b) {
        sanitize(b);
        if (!b[0]) {
            free(b);
            b = strdup("input");
        }
    }
    return b;
}

struct slot {
    const char *name;
    size_t i; /* index of the input */
};

static int by_name(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* v: the inputs ordered by their current name, then by input order */
static void sort_slots(struct slot *v, char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (struct slot){ names[i], i };
    qsort(v, n, sizeof *v, by_name);
}

/* the end of the run of equal names that starts at v[a] */
static size_t run_end(const struct slot *v, size_t n, size_t a)
{
    size_t b = a + 1;
    while (b < n && strcmp(v[b].name, v[a].name) == 0)
        b++;
    return b;
}

/* A file name that different inputs share (x1/k.o, x2/k.o): each of them is named by its whole path. */
static int whole_paths_where_shared(const struct tlck_inputs *ins, char **names, struct slot *v)
{
    sort_slots(v, names, ins->n);
    for (size_t a = 0, b; a < ins->n; a = b) {
        b = run_end(v, ins->n, a);
        int differ = 0;
        for (size_t k = a + 1; k < b; k++)
            differ |= strcmp(ins->v[v[k].i].display, ins->v[v[a].i].display) != 0;
        for (size_t k = a; differ && k < b; k++) {
            free(names[v[k].i]);
            if ((names[v[k].i] = flat_name(ins->v[v[k].i].display, 1)) == NULL)
                return -1;
        }
    }
    return 0;
}

/* What still repeats (an input given twice, an archive's members of one name, paths that sanitize alike): the
 * second and later in input order get ~2, ~3...; no sanitized name holds '~', so these meet no other name. */
static int number_repeats(size_t n, char **names, struct slot *v)
{
    sort_slots(v, names, n);
    for (size_t a = 0, b; a < n; a = b) {
        b = run_end(v, n, a);
        for (size_t k = a + 1; k < b; k++) {
            char *s = tlck_asprintf("%s~%zu", names[v[k].i], k - a + 1);
            if (!s)
                return -1;
            free(names[v[k].i]);
            names[v[k].i] = s;
        }
    }
    return 0;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* The <input> part of every input's output names, distinct across the run; NULL when out of memory. */
static char **output_bases(const struct tlck_inputs *ins)
{
    char **names = calloc(ins->n ? ins->n : 1, sizeof *names);
    struct slot *v = malloc((ins->n ? ins->n : 1) * sizeof *v);
    int ok = names && v;
    for (size_t i = 0; ok && i < ins->n; i++)
        ok = (names[i] = flat_name(ins->v[i].display, 0)) != NULL;
    ok = ok && whole_paths_where_shared(ins, names, v) == 0 && number_repeats(ins->n, names, v) == 0;
    free(v);
    if (!ok) {
        free_names(names, ins->n);
        return NULL;
    }
    return names;
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
    int rc = tl_write_all(fd, p, n);
    if (close(fd) != 0 || rc != 0) {
        fprintf(stderr, "trueline-check: %s/%s: write failed: %s\n", dir, name, strerror(errno));
        return -1;
    }
    printf("%s/%s\n", dir, name);
    return 0;
}

static int extract_one(const struct tlck_input *in, const char *base, int dirfd, const struct tlck_options *o)
{
    struct tlck_input_bytes b;
    tl_error err;
    struct tlck_read_ctx ctx;
    tlck_read_ctx_init(&ctx, o);
    if (tlck_input_map(in, &b, &ctx.budget, &err) != 0) {
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
        return -1;
    }
    const unsigned char *data = b.data;
    size_t size = b.size;
    struct tlck_device_refs refs = { 0 };
    int rc = tlck_device_enumerate(in->display, data, size, &refs, &err);
    if (rc != 0)
        fprintf(stderr, "trueline-check: %s: %s\n", in->display, err.msg);
    struct tlck_fatbin_scratch s = { 0 };
    for (size_t i = 0; i < refs.n; i++) {
        const struct tlck_device_ref *r = &refs.v[i];
        const unsigned char *p;
        size_t n;
        int is_ptx = r->fe.kind == TLCK_FATBIN_KIND_PTX;
        char arch[32], name[512];
        tlck_device_entry_arch(arch, sizeof arch, &r->fe);
        if (r->is_cubin_file)
            snprintf(name, sizeof name, "%s.copy.cubin", base);
        else
            snprintf(name, sizeof name, "%s.%s%u.%u.%s.%s", base,
                     r->section && strcmp(r->section, "__nv_relfatbin") == 0 ? "rel" : "", r->fe.container,
                     r->fe.index, arch, is_ptx ? "ptx" : r->fe.kind == TLCK_FATBIN_KIND_ELF ? "cubin" : "bin");
        if (tlck_fatbin_image(&r->fe, &s, ctx.image_cap, &p, &n, &err) != 0) {
            fprintf(stderr, "trueline-check: %s: entry %u of container %u: %s\n", in->display, r->fe.index,
                    r->fe.container, err.msg);
            rc = -1;
            continue;
        }
        if (write_image(dirfd, o->extract_dir, name, p, n, is_ptx) != 0)
            rc = -1;
        tlck_fatbin_scratch_shrink(&s);
    }
    tlck_fatbin_scratch_free(&s);
    tlck_device_refs_free(&refs);
    tlck_input_unmap(&b);
    return rc;
}

int tlck_tool_extract(const struct tlck_options *o)
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
    struct tlck_inputs ins = { .o = o };
    tlck_inputs_expand(&ins, o->inputs, o->ninputs);
    char **bases = output_bases(&ins);
    int status = bases ? 0 : 2;
    if (!bases)
        fprintf(stderr, "trueline-check: --extract: out of memory\n");
    for (size_t i = 0; bases && i < ins.n; i++)
        if (extract_one(&ins.v[i], bases[i], dirfd, o) != 0)
            status = 2;
    free_names(bases, ins.n);
    tlck_inputs_free(&ins);
    close(dirfd);
    return status;
}
