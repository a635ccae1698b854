/* checker/platform_blacklist.c: the table loader (conf/platform_blacklist.tsv as written from auditwheel 6.8.2's
 * policy data: manylinux_2_17 blacklists libz.so.1's gzflags; uncompress2 up to manylinux_2_31, not from
 * manylinux_2_34), its errors on malformed tables (file and line named), and the rule auditwheel applies: a
 * DT_NEEDED library, non-weak undefined symbols by name; what makes an extension module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform_blacklist.h"
#include "unit.h"

/* A table written to a temporary file; its path into path. */
static int write_table(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/tl-unit-blacklist-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *fp = fdopen(fd, "w");
    if (!fp)
        return close(fd), -1;
    fputs(text, fp);
    return fclose(fp);
}

/* Loads text as a table: the loader's return value, its message into msg. */
static int load_text(const char *text, char *msg, size_t n, char *path, size_t pn)
{
    struct tlck_blacklist b;
    tl_error err = { { 0 } };
    if (write_table(path, pn, text) != 0)
        return 99;
    int rc = tlck_blacklist_load(&b, path, &err);
    snprintf(msg, n, "%s", err.msg);
    tlck_blacklist_free(&b);
    unlink(path);
    return rc;
}

static void malformed(void)
{
    char msg[512], path[64], want[128];
    int rc = load_text("# c\ntag\tlibrary\tsymbols\nmanylinux_2_17\tlibz.so.1\n", msg, sizeof msg, path, sizeof path);
    snprintf(want, sizeof want, "%s:3: expected 3 tab-separated columns", path);
    UNIT_CHECK("two columns: -1", rc == -1);
    UNIT_CHECK("two columns: the file, line 3 and the columns named", strstr(msg, want) != NULL);
    rc = load_text("manylinux_2_17\tlibz.so.1\tgzflags\textra\n", msg, sizeof msg, path, sizeof path);
    UNIT_CHECK("four columns: -1 naming line 1", rc == -1 && strstr(msg, ":1: expected 3") && strstr(msg, "found 4"));
    rc = load_text("manylinux_2_17\tlibz.so.1\tgzflags\ta\tb\n", msg, sizeof msg, path, sizeof path);
    UNIT_CHECK("five columns: counted as five", rc == -1 && strstr(msg, "found 5"));
    rc = load_text("manylinux_2_17\tlibz.so.1\tgzflags,,_tr_init\n", msg, sizeof msg, path, sizeof path);
    UNIT_CHECK("an empty symbol name: -1", rc == -1 && strstr(msg, ":1: the symbols column has an empty name"));
    rc = load_text("manylinux_2_17\t\tgzflags\n", msg, sizeof msg, path, sizeof path);
    UNIT_CHECK("an empty library: -1", rc == -1 && strstr(msg, ":1: the library column is empty"));
    rc = load_text("manylinux_2_17 libz.so.1 gzflags\n", msg, sizeof msg, path, sizeof path);
    UNIT_CHECK("spaces instead of tabs: -1", rc == -1 && strstr(msg, ":1: expected 3 tab-separated columns"));
    rc = load_text("# only comments\n\ntag\tlibrary\tsymbols\n", msg, sizeof msg, path, sizeof path);
    UNIT_CHECK("comments, a blank line and the header: an empty table, no error", rc == 0);

    struct tlck_blacklist b;
    tl_error err = { { 0 } };
    UNIT_CHECK("a named file that is missing: -1 naming it",
               tlck_blacklist_load(&b, "/nonexistent/bl.tsv", &err) == -1 && strstr(err.msg, "/nonexistent/bl.tsv"));
}

/* A member "pkg.whl!m/NAME" with the given .dynsym and DT_NEEDED. */
struct fake {
    struct tlck_file f;
    struct tlck_symbol syms[4];
    char *needed[2];
};

static void fake_file(struct fake *x, const char *display, const char *init, const char *import, unsigned bind,
                      const char *lib)
{
    memset(x, 0, sizeof *x);
    x->f.path = "pkg.whl";
    x->f.display = (char *)display;
    x->f.elf_type = 3; /* ET_DYN */
    x->f.machine = 62;
    x->syms[0] = (struct tlck_symbol){ .name = (char *)init, .type = 2 /* STT_FUNC */, .bind = 1, .defined = 1, .shndx = 12 };
    x->syms[1] = (struct tlck_symbol){ .name = (char *)import, .type = 2, .bind = (unsigned char)bind };
    x->syms[2] = (struct tlck_symbol){ .name = "zlibVersion", .type = 2, .bind = 1 };
    x->f.dynsyms = x->syms;
    x->f.ndynsyms = 3;
    x->needed[0] = "libc.so.6";
    x->needed[1] = (char *)lib;
    x->f.needed = x->needed;
    x->f.nneeded = 2;
}

static void rule(void)
{
    struct tlck_blacklist b;
    tl_error err = { { 0 } };
    char path[64];
    if (write_table(path, sizeof path, "manylinux_2_17\tlibz.so.1\tgzflags,_tr_init\nmanylinux_2_17\tlibfoo.so.1\t*\n") != 0)
        UNIT_SKIP("cannot write a temporary file");
    int rc = tlck_blacklist_load(&b, path, &err);
    unlink(path);
    UNIT_CHECK("the table loads", rc == 0 && b.n == 2);
    struct fake x;
    struct tlck_blacklist_hit hit;
    const char *ext = "pkg.whl!m/_ext.cpython-311-x86_64-linux-gnu.so";
    fake_file(&x, ext, "PyInit__ext", "gzflags", 1, "libz.so.1");
    UNIT_CHECK("an extension module importing gzflags from its libz.so.1 breaks manylinux_2_17",
               tlck_blacklist_hit(&b, "manylinux_2_17", &x.f, &hit) && hit.count == 1);
    UNIT_STREQ("the hit names the symbol", hit.symbol, "gzflags");
    UNIT_STREQ("the hit names the library", hit.lib, "libz.so.1");
    UNIT_CHECK("a tag without rows blacklists nothing", !tlck_blacklist_hit(&b, "manylinux_2_41", &x.f, &hit));
    fake_file(&x, ext, "PyInit__ext", "gzflags", 2 /* STB_WEAK */, "libz.so.1");
    UNIT_CHECK("a weak reference does not count", !tlck_blacklist_hit(&b, "manylinux_2_17", &x.f, &hit));
    fake_file(&x, ext, "PyInit__ext", "gzflags", 1, "libpng16.so.16");
    UNIT_CHECK("without libz.so.1 in DT_NEEDED, gzflags does not count",
               !tlck_blacklist_hit(&b, "manylinux_2_17", &x.f, &hit));
    UNIT_CHECK("PyInit__ext in _ext.cpython-311-x86_64-linux-gnu.so: an extension module", tlck_python_extension(&x.f));
    fake_file(&x, "pkg.whl!m/libhelp.so", "helper", "gzflags", 1, "libz.so.1");
    UNIT_CHECK("a library importing gzflags breaks the blacklist too",
               tlck_blacklist_hit(&b, "manylinux_2_17", &x.f, &hit));
    UNIT_CHECK("... but is no extension module", !tlck_python_extension(&x.f));
    fake_file(&x, "pkg.whl!m/_other.cpython-311-x86_64-linux-gnu.so", "PyInit__ext", "gzflags", 1, "libz.so.1");
    UNIT_CHECK("PyInit_ of another module name does not make an extension module", !tlck_python_extension(&x.f));
    fake_file(&x, "pkg.whl!m/_ext.so", "_cffi_pypyinit__ext", "gzflags", 1, "libz.so.1");
    UNIT_CHECK("_cffi_pypyinit_MOD makes one", tlck_python_extension(&x.f));
    fake_file(&x, ext, "PyInit__ext", "printf", 1, "libfoo.so.1");
    UNIT_CHECK("'*' blacklists the library whatever the file imports",
               tlck_blacklist_hit(&b, "manylinux_2_17", &x.f, &hit) && hit.count == 0 && strcmp(hit.symbol, "*") == 0);
    tlck_blacklist_free(&b);
}

static void shipped_table(void)
{
    struct tlck_blacklist b;
    tl_error err = { { 0 } };
    if (tlck_blacklist_load(&b, NULL, &err) != 0) {
        printf("    %s\n", err.msg);
        UNIT_CHECK("conf/platform_blacklist.tsv loads", 0);
        return;
    }
    if (!b.n)
        UNIT_SKIP("conf/platform_blacklist.tsv not found from this build directory");
    struct fake x;
    struct tlck_blacklist_hit hit;
    const char *ext = "pkg.whl!m/_ext.cpython-311-x86_64-linux-gnu.so";
    fake_file(&x, ext, "PyInit__ext", "gzflags", 1, "libz.so.1");
    UNIT_CHECK("manylinux_2_17 blacklists gzflags", tlck_blacklist_hit(&b, "manylinux_2_17", &x.f, &hit));
    UNIT_CHECK("manylinux2014 (any case) too", tlck_blacklist_hit(&b, "MANYLINUX2014", &x.f, &hit));
    UNIT_CHECK("musllinux_1_2 too", tlck_blacklist_hit(&b, "musllinux_1_2", &x.f, &hit));
    fake_file(&x, ext, "PyInit__ext", "uncompress2", 1, "libz.so.1");
    UNIT_CHECK("manylinux_2_31 blacklists uncompress2", tlck_blacklist_hit(&b, "manylinux_2_31", &x.f, &hit));
    UNIT_CHECK("manylinux_2_34 does not", !tlck_blacklist_hit(&b, "manylinux_2_34", &x.f, &hit));
    tlck_blacklist_free(&b);
}

UNIT_MAIN(UNIT_CASE(malformed), UNIT_CASE(rule), UNIT_CASE(shipped_table))
