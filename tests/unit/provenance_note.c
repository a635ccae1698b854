/* .note.trueline: encode/decode round trip, argv bounds, the argv hash, stamping a real gcc object in
 * place (bytes before the appended part unchanged, readelf still happy), verification outcomes, and the
 * checker's reader on the stamped file, and lib's scan for record sections against readelf. gcc builds the
 * fixtures at test time. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs.h"
#include "load.h"
#include "trueline/content_digest.h"
#include "trueline/note.h"
#include "trueline/note_section.h"
#include "unit.h"
#include "../../wrapper/provenance/stamp.h"
#include "../../wrapper/provenance/verify.h"

static char *argv_fixture[] = { "-c", "-O2", "-g1", "k.c", "-o", "k.o", NULL };

static tl_note sample(void)
{
    tl_note n = { 0 };
    n.type = TL_NOTE_COMPILE;
    n.wrapper_version = "0.1.0";
    n.family = "gcc";
    n.compiler_version = "gcc (Debian 12.2.0-14) 12.2.0";
    n.fingerprint = "00112233445566778899aabbccddeeff";
    n.argv_hash = "ffeeddccbbaa99887766554433221100";
    n.lineinfo_level = "-g1";
    n.lineinfo_forced = 1;
    n.source = "k.c";
    n.cwd = "/tmp/x";
    n.argv = argv_fixture;
    n.argc = 6;
    return n;
}

struct got { tl_note *v[4]; int n; };
static void keep(tl_note *n, void *ctx)
{
    struct got *g = ctx;
    if (g->n < 4) g->v[g->n++] = n;
    else { tl_note_free(n); free(n); }
}
static void drop(struct got *g)
{
    for (int i = 0; i < g->n; i++) { tl_note_free(g->v[i]); free(g->v[i]); }
    g->n = 0;
}

static void roundtrip(void)
{
    tl_note n = sample();
    unsigned char *rec;
    size_t len;
    tl_error err;
    UNIT_CHECK("encode", tl_note_encode(&n, TL_NOTE_ARGV_MAX_DEFAULT, &rec, &len, &err) == 0);
    UNIT_CHECK("record is 4-aligned", len % 4 == 0);
    struct got g = { 0 };
    UNIT_CHECK("decode one record", tl_note_decode_all(rec, len, 0, keep, &g, &err) == 1 && g.n == 1);
    if (g.n == 1) {
        tl_note *d = g.v[0];
        UNIT_STREQ("family", d->family, "gcc");
        UNIT_STREQ("fingerprint", d->fingerprint, n.fingerprint);
        UNIT_STREQ("compiler version", d->compiler_version, n.compiler_version);
        UNIT_STREQ("line-info level", d->lineinfo_level, "-g1");
        UNIT_CHECK("flags", d->lineinfo_forced == 1 && d->device_debug == 0 && d->format == TL_NOTE_FORMAT);
        UNIT_CHECK("argv kept whole", d->argc == 6 && d->argc_total == 6 && strcmp(d->argv[3], "k.c") == 0);
    }
    drop(&g);
    /* a record of another owner in the same section is skipped */
    unsigned char two[512];
    static const unsigned char gnu[] = { 4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 4 };
    memcpy(two, gnu, sizeof gnu);
    memcpy(two + sizeof gnu, rec, len < sizeof two - sizeof gnu ? len : 0);
    UNIT_CHECK("foreign record skipped", tl_note_decode_all(two, sizeof gnu + len, 0, keep, &g, &err) == 1);
    drop(&g);
    UNIT_CHECK("truncated section rejected", tl_note_decode_all(rec, len - 4, 0, keep, &g, &err) < 0 &&
                                                 strstr(err.msg, "extends past"));
    drop(&g);
    free(rec);

    UNIT_CHECK("encode with a 20-byte argv bound", tl_note_encode(&n, 20, &rec, &len, &err) == 0);
    tl_note_decode_all(rec, len, 0, keep, &g, &err);
    UNIT_CHECK("argv cut at an element boundary",
               g.n == 1 && g.v[0]->argc > 0 && g.v[0]->argc < 6 && g.v[0]->argc_total == 6);
    drop(&g);
    free(rec);
    UNIT_CHECK("encode with argv left out", tl_note_encode(&n, 0, &rec, &len, &err) == 0);
    tl_note_decode_all(rec, len, 0, keep, &g, &err);
    UNIT_CHECK("argv omitted", g.n == 1 && g.v[0]->argc == 0 && g.v[0]->argv_omitted && g.v[0]->argc_total == 6);
    drop(&g);
    free(rec);
}

/* The variables folded into the argv ("fe"): kept in order with their values (which hold spaces and '='),
 * before the MAC placeholder, left out with the argv; a value without a name is not one. */
static void folded_env(void)
{
    tl_note n = sample();
    char *fe[] = { "NVCC_PREPEND_FLAGS=-DX=1 -lineinfo", "NVCC_APPEND_FLAGS=", NULL };
    n.folded_env = fe;
    n.nfolded_env = 2;
    n.seal_mac = 1;
    unsigned char *rec;
    size_t len, off, vlen, doff, covered;
    tl_error err;
    struct got g = { 0 };
    UNIT_CHECK("encode", tl_note_encode(&n, TL_NOTE_ARGV_MAX_DEFAULT, &rec, &len, &err) == 0);
    UNIT_CHECK("decode", tl_note_decode_all(rec, len, 0, keep, &g, &err) == 1);
    UNIT_CHECK("both variables, in order", g.n == 1 && g.v[0]->nfolded_env == 2 &&
                                               strcmp(g.v[0]->folded_env[0], fe[0]) == 0 &&
                                               strcmp(g.v[0]->folded_env[1], fe[1]) == 0);
    UNIT_CHECK("the MAC covers them", tl_note_field(rec, len, "fe", &off, &vlen) == 0 &&
                                          tl_note_mac_span(rec, len, &doff, &covered) == 0 && off < doff + covered);
    drop(&g);
    free(rec);
    UNIT_CHECK("encode with argv left out", tl_note_encode(&n, 0, &rec, &len, &err) == 0);
    UNIT_CHECK("left out with the argv", tl_note_field(rec, len, "fe", &off, &vlen) != 0);
    free(rec);
    char *nameless[] = { "=-G", "-G", NULL };
    n.folded_env = nameless;
    UNIT_CHECK("encode a nameless one", tl_note_encode(&n, TL_NOTE_ARGV_MAX_DEFAULT, &rec, &len, &err) == 0);
    tl_note_decode_all(rec, len, 0, keep, &g, &err);
    UNIT_CHECK("decoded as no variable", g.n == 1 && g.v[0]->nfolded_env == 0);
    drop(&g);
    free(rec);
}

static void argv_hash(void)
{
    char *a[] = { "-c", "k.c", "-o", "one.o" }, *b[] = { "-c", "k.c", "-otwo.o" }, *c[] = { "-c", "k.c", "-O2" };
    char *d[] = { "-c", "k.c", "--output-file=x.o" }, *e[] = { "-ck.c" };
    tl_hash128 ha = tl_note_argv_hash(a, 4), hb = tl_note_argv_hash(b, 3), hc = tl_note_argv_hash(c, 3);
    UNIT_CHECK("argv hash ignores the output operand", tl_hash_equal(ha, hb) &&
                                                           tl_hash_equal(ha, tl_note_argv_hash(d, 3)));
    UNIT_CHECK("argv hash sees other flags", !tl_hash_equal(ha, hc));
    UNIT_CHECK("argv hash is length-prefixed", !tl_hash_equal(tl_note_argv_hash(e, 1), tl_note_argv_hash(a, 2)));
    UNIT_STREQ("output operand", tlcc_prov_output(a, 4), "one.o");
    UNIT_STREQ("output operand (joined)", tlcc_prov_output(b, 3), "two.o");
    char *n[] = { "-c", "k.cu", "-odir", "objs", "-o=k.o" }, *n2[] = { "-c", "k.cu", "-odir", "other", "-o", "x.o" };
    UNIT_STREQ("nvcc -o= form, -odir is not the output", tlcc_prov_output(n, 5), "k.o");
    UNIT_CHECK("-odir's value stays in the hash", !tl_hash_equal(tl_note_argv_hash(n, 5), tl_note_argv_hash(n2, 6)));
}

static int sh(const char *cmd)
{
    return system(cmd);
}

static void stamp_and_verify_in(const char *dir)
{
    char cmd[4096], obj[256], copy[256];
    snprintf(obj, sizeof obj, "%s/k.o", dir);
    snprintf(copy, sizeof copy, "%s/k.orig.o", dir);
    snprintf(cmd, sizeof cmd, "cd %s && printf 'int k(int x){return x*3;}\\n' > k.c && gcc -c -g1 k.c -o k.o && cp k.o k.orig.o", dir);
    if (sh(cmd) != 0) {
        UNIT_SKIP("gcc could not build the fixture");
    }
    tl_note n = sample();
    tl_error err;
    UNIT_CHECK("stamp a gcc object", tlcc_stamp_file(obj, &n, TL_NOTE_ARGV_MAX_DEFAULT, &err) == 0);
    UNIT_CHECK("host object recognized", tlcc_prov_is_host_object(obj) && !tlcc_prov_is_host_object(dir));
    struct stat a, b;
    stat(obj, &a);
    stat(copy, &b);
    /* every section but the name table keeps its header and its bytes (only the name table moves) */
    snprintf(cmd, sizeof cmd, "cd %s && for f in k.o k.orig.o; do readelf -W -S $f | grep '^  \\[' | "
             "grep -v 'shstrtab\\|trueline' > $f.sec; objcopy -O binary --only-section=.text $f $f.text; "
             "readelf -x .debug_info $f | tail -n +3 > $f.info; done; cmp -s k.o.sec k.orig.o.sec && "
             "cmp -s k.o.text k.orig.o.text && cmp -s k.o.info k.orig.o.info", dir);
    UNIT_CHECK("original sections kept in place", a.st_size > b.st_size && sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "readelf -n %s 2>&1 | grep -q 'trueline' && readelf -W -S %s 2>&1 | grep -q 'NOTE' && "
             "! readelf -a %s 2>&1 | grep -qi 'warning\\|error'", obj, obj, obj);
    UNIT_CHECK("readelf lists the note and sees no damage", sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "cd %s && gcc -shared k.o -o libk.so && readelf -n libk.so | grep -q trueline", dir);
    UNIT_CHECK("the stamped object links", sh(cmd) == 0);

    tlcc_verify_result r;
    tlcc_verify_expect e = { n.fingerprint, n.argv_hash, NULL, NULL, argv_fixture, 6, NULL, NULL, NULL, NULL };
    tlcc_verify_object(obj, &e, &r);
    UNIT_CHECK("verification passes for the same invocation", r.status == TLCC_VERIFY_OK);
    char *other[] = { "-c", "-O3", "-g1", "k.c", "-o", "k.o" };
    e = (tlcc_verify_expect){ n.fingerprint, "0000000000000000000000000000ffff", NULL, NULL, other, 6, NULL, NULL, NULL, NULL };
    tlcc_verify_object(obj, &e, &r);
    UNIT_CHECK("argv mismatch names the differing flags", r.status == TLCC_VERIFY_MISMATCH &&
                                                              strstr(r.what, "-O2") && strstr(r.what, "-O3"));
    e = (tlcc_verify_expect){ "0000000000000000000000000000aaaa", n.argv_hash, NULL, NULL, argv_fixture, 6, NULL, NULL, NULL, NULL };
    tlcc_verify_object(obj, &e, &r);
    UNIT_CHECK("fingerprint mismatch reported", r.status == TLCC_VERIFY_MISMATCH && strstr(r.what, "fingerprint") &&
                                                    strstr(r.what, n.fingerprint));
    e = (tlcc_verify_expect){ n.fingerprint, n.argv_hash, NULL, NULL, argv_fixture, 6, NULL, NULL, NULL, NULL };
    tlcc_verify_object(copy, &e, &r);
    UNIT_CHECK("unstamped object: no record", r.status == TLCC_VERIFY_NO_NOTE);

    /* the checker's reader on the stamped object */
    struct tlck_input in = { .display = obj, .path = obj };
    struct tlck_options o = { 0 };
    struct tlck_file f;
    tlck_load_file(&in, &o, &f);
    UNIT_CHECK("checker reads one record", !f.error && f.has_note_section && f.nnotes == 1);
    if (f.nnotes == 1) {
        UNIT_STREQ("checker: source", f.notes[0].source, "k.c");
        UNIT_STREQ("checker: argv", f.notes[0].argv, "-c -O2 -g1 k.c -o k.o");
    }
    tlck_file_free(&f);

    /* a second record (what a link stamp adds) goes into the same section */
    n.type = TL_NOTE_LINK;
    UNIT_CHECK("append a second record", tlcc_stamp_file(obj, &n, 0, &err) == 0);
    tlck_load_file(&in, &o, &f);
    UNIT_CHECK("two records, one section", f.nnotes == 2 && f.notes[1].is_link && !f.notes[0].is_link);
    tlck_file_free(&f);
    snprintf(cmd, sizeof cmd, "readelf -W -S %s | grep -c '\\.note\\.trueline' | grep -qx 1", obj);
    UNIT_CHECK("still one .note.trueline section", sh(cmd) == 0);
    UNIT_CHECK("not an ELF file: clear error", tlcc_stamp_file(dir, &n, 0, &err) != 0 && strstr(err.msg, dir));
}

/* The output of a shell command as a number (-1 when it fails). */
static long sh_count(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    long n = -1;
    if (p && fscanf(p, "%ld", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

/* lib's one scan for record sections against readelf: a relocatable link kept two (ld -r --unique), and a
 * section that is only named .note.trueline (PROGBITS, objcopy --rename-section) is not one. */
static void note_sections_in(const char *dir)
{
    char cmd[4096], obj[256];
    snprintf(obj, sizeof obj, "%s/two.o", dir);
    snprintf(cmd, sizeof cmd, "cd %s && printf 'int a(void){return 1;}\\n' > a.c && printf 'int b(void){return 2;}\\n' > b.c"
             " && gcc -c a.c -o a.o && gcc -c b.c -o b.o", dir);
    if (sh(cmd) != 0)
        UNIT_SKIP("gcc could not build the fixture");
    tl_note n = sample();
    tl_error err;
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/a.o", dir);
    snprintf(b, sizeof b, "%s/b.o", dir);
    UNIT_CHECK("stamp two objects", tlcc_stamp_file(a, &n, 0, &err) == 0 && tlcc_stamp_file(b, &n, 0, &err) == 0);
    snprintf(cmd, sizeof cmd, "cd %s && ld -r --unique=.note.trueline a.o b.o -o two.o && "
             "objcopy --rename-section .comment=.note.trueline two.o", dir);
    if (sh(cmd) != 0)
        UNIT_SKIP("ld -r --unique or objcopy --rename-section failed");
    snprintf(cmd, sizeof cmd, "readelf -W -S %s | grep -c '\\] \\.note\\.trueline  *NOTE '", obj);
    long want = sh_count(cmd);
    snprintf(cmd, sizeof cmd, "readelf -W -S %s | grep -c '\\] \\.note\\.trueline '", obj);
    long named = sh_count(cmd);
    UNIT_CHECK("readelf: two record sections and one more of that name", want == 2 && named == 3);
    int fd = open(obj, O_RDONLY);
    elf_version(EV_CURRENT);
    Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    size_t shstrndx = 0;
    UNIT_CHECK("libelf opens the link", elf && elf_getshdrstrndx(elf, &shstrndx) == 0);
    long got = 0, notes = 0;
    GElf_Shdr sh;
    for (Elf_Scn *s = elf ? tl_note_section_next(elf, shstrndx, NULL, &sh) : NULL; s;
         s = tl_note_section_next(elf, shstrndx, s, &sh)) {
        got++;
        notes += sh.sh_type == SHT_NOTE && sh.sh_size > 0;
    }
    UNIT_CHECK("tl_note_section_next finds what readelf lists as NOTE", got == want && notes == want);
    uint64_t off, size;
    UNIT_CHECK("tl_record_sections counts the same", elf && tl_record_sections(elf, &off, &size) == want);
    if (elf)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
    struct tlck_input in = { .display = obj, .path = obj };
    struct tlck_options o = { 0 };
    struct tlck_file f;
    tlck_load_file(&in, &o, &f);
    UNIT_CHECK("the checker reads a record from each", !f.error && f.nnotes == 2);
    tlck_file_free(&f);
}

static void note_sections(void)
{
    char dir[] = "/tmp/tl-notesec-XXXXXX";
    UNIT_CHECK("a temporary directory", mkdtemp(dir) != NULL);
    if (unit_now.failed)
        return;
    setenv("XDG_CACHE_HOME", dir, 1);
    note_sections_in(dir);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

/* In a directory of its own, which is also the memo's (XDG_CACHE_HOME). */
static void stamp_and_verify(void)
{
    char dir[] = "/tmp/tl-note-XXXXXX";
    UNIT_CHECK("a temporary directory", mkdtemp(dir) != NULL);
    if (unit_now.failed)
        return;
    setenv("XDG_CACHE_HOME", dir, 1);
    stamp_and_verify_in(dir);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

UNIT_MAIN(UNIT_CASE(roundtrip), UNIT_CASE(folded_env), UNIT_CASE(argv_hash), UNIT_CASE(stamp_and_verify),
          UNIT_CASE(note_sections))
