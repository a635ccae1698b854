/* Cache-hit verification: after a cached compile, the object's record must say it was built by this
 * toolchain (fingerprint) from this effective argv (argv hash); statistics of what was found.
 * Reading goes through libelf like every other ELF access of the project: objects under 128 KB are read
 * with one read(2) and parsed with elf_memory; larger ones with ELF_C_READ (elfutils 0.188), which reads
 * lazily (one open and four small preads: ELF header, section headers, section-name table, the note),
 * never the whole object, so a large nvcc object (fatbin) costs the same.
 * The host-object test is made on the header libelf already read (no second open). */
#include "provenance.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EM_CUDA_ 190

struct collected {
    tl_note *compile;
    int ncompile;
};

static void collect(tl_note *n, void *ctx)
{
    struct collected *c = ctx;
    if (n->type == TL_NOTE_COMPILE) {
        c->ncompile++;
        if (!c->compile) {
            c->compile = n;
            return;
        }
    }
    tl_note_free(n);
    free(n);
}

static void say(tl_verify_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(tl_verify_result *r, const char *fmt, ...)
{
    size_t used = strlen(r->what);
    if (used + 1 >= sizeof r->what)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what + used, sizeof r->what - used, fmt, ap);
    va_end(ap);
}

static int in_argv(const char *s, char *const *v, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, v[i]) == 0)
            return 1;
    return 0;
}

/* Names argv elements present on one side only (the output operand excluded, as in the hash). */
static void argv_diff(tl_verify_result *r, const tl_note *n, char *const *argv, int argc)
{
    if (n->argv_omitted || n->argc == 0) {
        say(r, " (the record carries no argv to compare)");
        return;
    }
    const char *out_here = tl_prov_output(argv, argc), *out_there = tl_prov_output(n->argv, n->argc);
    int shown = 0;
    for (int i = 0; i < n->argc && shown < 8; i++)
        if (!in_argv(n->argv[i], argv, argc) && n->argv[i] != out_there)
            say(r, "%s only in the cached object's argv: %s", shown++ ? ";" : ":", n->argv[i]);
    for (int i = 0; i < argc && shown < 8; i++)
        if (!in_argv(argv[i], n->argv, n->argc) && argv[i] != out_here)
            say(r, "%s only in this invocation: %s", shown++ ? ";" : ":", argv[i]);
    if (!shown)
        say(r, n->argc < n->argc_total ? " (recorded argv was cut; the difference is past the cut)"
                                       : " (same elements in another order)");
}

static void compare(tl_verify_result *r, const tl_note *n, const char *fp, const char *ah, char *const *argv,
                    int argc)
{
    int fp_ok = n->fingerprint && strcmp(n->fingerprint, fp) == 0;
    int ah_ok = n->argv_hash && strcmp(n->argv_hash, ah) == 0;
    if (fp_ok && ah_ok)
        return;
    r->status = TL_VERIFY_MISMATCH;
    if (!fp_ok)
        say(r, "toolchain fingerprint %s (%s %s) in the cached object, this toolchain is %s",
            n->fingerprint ? n->fingerprint : "(none)", n->family ? n->family : "?",
            n->compiler_version ? n->compiler_version : "?", fp);
    if (!ah_ok) {
        say(r, "%seffective-argv hash %s in the cached object, this invocation has %s", fp_ok ? "" : "; ",
            n->argv_hash ? n->argv_hash : "(none)", ah);
        argv_diff(r, n, argv, argc);
    }
}

static int read_record(const char *path, struct collected *c, tl_verify_result *r)
{
    int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC); /* openat: musl's open() adds an fcntl for O_CLOEXEC */
    if (fd < 0 && errno == ENOENT) {
        r->status = TL_VERIFY_NOT_HOST;
        return -1;
    }
    if (fd < 0) {
        r->status = TL_VERIFY_UNREADABLE;
        say(r, "cannot open: %s", strerror(errno));
        return -1;
    }
    elf_version(EV_CURRENT);
    /* A host object of a hit is usually small (a few KB for gcc, tens of KB with nvcc's fatbin): one read
     * and libelf on the memory image costs 1 system call where ELF_C_READ's lazy reads cost 7 (fcntl,
     * fstat, 4 preads); larger files keep the lazy reads, which never touch the bulk of the object. */
    static char image[128 << 10];
    ssize_t got = read(fd, image, sizeof image);
    Elf *elf = got > 0 && (size_t)got < sizeof image ? elf_memory(image, (size_t)got) : elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    size_t shstrndx;
    int rc = -1;
    if (!elf || elf_kind(elf) != ELF_K_ELF) { /* not ELF at all: what tl_prov_is_host_object skips too */
        r->status = TL_VERIFY_NOT_HOST;
        goto out;
    }
    if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx)) {
        r->status = TL_VERIFY_UNREADABLE;
        say(r, "not a readable ELF object");
        goto out;
    }
    if (eh.e_type != ET_REL || eh.e_machine == EM_CUDA_) {
        r->status = TL_VERIFY_NOT_HOST;
        goto out;
    }
    rc = 0;
    for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
        GElf_Shdr sh;
        const char *name;
        if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE ||
            !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, TL_NOTE_SECTION) != 0)
            continue;
        Elf_Data *d = elf_rawdata(s, NULL);
        tl_error err;
        if (d && d->d_size &&
            tl_note_decode_all(d->d_buf, d->d_size, eh.e_ident[EI_DATA] == ELFDATA2MSB, collect, c, &err) < 0) {
            r->status = TL_VERIFY_MISMATCH;
            say(r, "damaged %s: %s", TL_NOTE_SECTION, err.msg);
            rc = -1;
        }
    }
out:
    if (elf)
        elf_end(elf);
    close(fd);
    return rc;
}

void tl_verify_object(const char *path, const char *fingerprint, const char *argv_hash, char *const *argv,
                      int argc, tl_verify_result *r)
{
    memset(r, 0, sizeof *r);
    struct collected c = { 0 };
    if (read_record(path, &c, r) == 0) {
        if (!c.compile) {
            r->status = TL_VERIFY_NO_NOTE;
            say(r, "no %s record: the object was not built through trueline-cc's stamping stage",
                TL_NOTE_SECTION);
        } else if (c.ncompile > 1) {
            r->status = TL_VERIFY_MISMATCH;
            say(r, "%d compile records in one object (expected one)", c.ncompile);
        } else {
            compare(r, c.compile, fingerprint, argv_hash, argv, argc);
        }
    }
    if (c.compile) {
        tl_note_free(c.compile);
        free(c.compile);
    }
}

const char *tl_prov_output(char *const *argv, int argc)
{
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *joined;
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--output-file") == 0) && i + 1 < argc)
            out = argv[++i];
        else if ((joined = tl_note_joined_output(a)))
            out = joined;
    }
    return out;
}

int tl_prov_is_host_object(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, h, sizeof h);
    close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0)
        return 0;
    int be = h[EI_DATA] == ELFDATA2MSB;
    unsigned type = be ? (unsigned)(h[16] << 8 | h[17]) : (unsigned)(h[17] << 8 | h[16]);
    unsigned machine = be ? (unsigned)(h[18] << 8 | h[19]) : (unsigned)(h[19] << 8 | h[18]);
    return type == ET_REL && machine != EM_CUDA_;
}

/* ---- statistics ----
 * One file per counter under $XDG_CACHE_HOME/trueline/provenance-stats/; an event appends one byte
 * (O_APPEND writes are atomic, so concurrent compiles never lose a count and need no lock) and the
 * count is the file's size. Cheapest on the hit path: open, write, close (a locked read-modify-write
 * of one text file cost 0.14 ms CPU in a fresh process, and ftruncate+rewrite on ext4 2.9 ms). */

static const char *const stat_names[TL_STAT_N] = {
    [TL_STAT_VERIFIED] = "verified", [TL_STAT_MISMATCH] = "mismatch", [TL_STAT_NO_NOTE] = "no_note",
    [TL_STAT_RECOMPILED] = "recompiled", [TL_STAT_STAMPED] = "stamped",
};

static int stats_dir(char *buf, size_t len)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (x && *x)
        snprintf(buf, len, "%s/trueline/provenance-stats", x);
    else if (home && *home)
        snprintf(buf, len, "%s/.cache/trueline/provenance-stats", home);
    else
        return -1;
    return 0;
}

static void make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0777);
            *p = '/';
        }
    mkdir(path, 0777);
}

void tl_stats_add(enum tl_stat which, int delta)
{
    char dir[4096], path[4200];
    if (stats_dir(dir, sizeof dir) != 0 || delta <= 0)
        return;
    snprintf(path, sizeof path, "%s/%s", dir, stat_names[which]);
    int fd = openat(AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0 && errno == ENOENT) {
        make_dirs(dir);
        fd = openat(AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    }
    if (fd < 0)
        return; /* statistics never fail a build */
    char ones[64];
    memset(ones, '1', sizeof ones);
    while (delta > 0) {
        int n = delta < (int)sizeof ones ? delta : (int)sizeof ones;
        if (write(fd, ones, (size_t)n) != n)
            break;
        delta -= n;
    }
    close(fd);
}

void tl_stats_zero(void)
{
    char dir[4096], path[4200];
    if (stats_dir(dir, sizeof dir) != 0)
        return;
    for (int i = 0; i < TL_STAT_N; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, stat_names[i]);
        if (truncate(path, 0) != 0 && errno != ENOENT) {
            /* nothing to report: statistics are best effort */
        }
    }
}

int tl_stats_print(void)
{
    char dir[4096], path[4200];
    long v[TL_STAT_N] = { 0 };
    int have = stats_dir(dir, sizeof dir) == 0;
    for (int i = 0; have && i < TL_STAT_N; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, stat_names[i]);
        if (stat(path, &st) == 0)
            v[i] = (long)st.st_size;
    }
    printf("Provenance (trueline-cc, %s)\n", have ? dir : "no cache directory");
    printf("  Objects stamped:              %8ld\n", v[TL_STAT_STAMPED]);
    printf("  Cached compiles verified:     %8ld\n", v[TL_STAT_VERIFIED]);
    printf("  Mismatches:                   %8ld\n", v[TL_STAT_MISMATCH]);
    printf("  Objects without a record:     %8ld\n", v[TL_STAT_NO_NOTE]);
    printf("  Recompiled after a mismatch:  %8ld\n", v[TL_STAT_RECOMPILED]);
    return 0;
}
