/* The argv as the cache keys it (wrapper/provenance/verify_key.c): what cache-hit verification compares. The expected
 * vectors are written out by hand from what ccache 4.7 and sccache 0.16 do (docs/provenance.md). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../wrapper/provenance/verify_key.h"
#include "trueline/hash.h"
#include "unit.h"

#define N(a) (int)(sizeof a / sizeof *a)

/* The vector joined with spaces (static buffer); pp: what the preprocessor reads left out too (`kp`). */
static const char *keyed_as(tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd, int pp)
{
    static char out[4096];
    int n = 0;
    char **v = tlcc_key_vector(k, argv, argc, cwd, pp, &n);
    out[0] = 0;
    for (int i = 0; v && i < n; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", v[i]);
    free(v);
    return out;
}

static const char *keyed(tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd)
{
    return keyed_as(k, argv, argc, cwd, 0);
}

/* The environment as the test just set it: the wrapper's snapshot (env_snapshot.h) is taken at start. */
static const tlcc_env_snapshot *env_now(void)
{
    extern char **environ;
    static tlcc_env_snapshot snap;
    tlcc_env_snapshot_free(&snap);
    tlcc_env_snapshot_take(&snap, environ);
    return &snap;
}

static int same_hash(tlcc_key_ctx *k, char *const *a, int na, char *const *b, int nb)
{
    return tl_hash_equal(tlcc_key_hash(k, a, na), tlcc_key_hash(k, b, nb));
}

static void dependency_options(void)
{
    unsetenv("CCACHE_BASEDIR");
    setenv("CCACHE_CONFIGPATH", "/nonexistent/ccache.conf", 1);
    setenv("CCACHE_IGNOREOPTIONS", "", 1);
    tlcc_key_ctx k;
    tlcc_key_init(&k, TLCC_KEY_CCACHE, "/w/build", env_now());
    char *a[] = { "-O2", "-MD", "-MF", "dep1.d", "-MT", "t1", "-c", "a.cpp", "-o", "a1.o" };
    char *b[] = { "-O2", "-MD", "-MFdep2.d", "-MQ", "t2", "-MP", "-c", "a.cpp", "-o", "a2.o" };
    UNIT_STREQ("gcc: -MD -MF -MT -MQ -MP and -o left out", keyed(&k, a, N(a), NULL), "-O2 -c a.cpp");
    UNIT_CHECK("gcc: per-build-dir -MF paths hash the same", same_hash(&k, a, N(a), b, N(b)));
    char *c[] = { "-O2", "-Wp,-MD,dep.d", "-c", "a.cpp" }, *c2[] = { "-O2", "-Wp,-MD,x.d,-DZ", "-c", "a.cpp" };
    UNIT_STREQ("gcc: -Wp,-MD,FILE left out", keyed(&k, c, N(c), NULL), "-O2 -c a.cpp");
    UNIT_STREQ("gcc: -Wp,-MD,FILE with more options kept", keyed(&k, c2, N(c2), NULL), "-O2 -Wp,-MD,x.d,-DZ -c a.cpp");
    char *nv[] = { "-arch=sm_90", "--generate-dependencies-with-compile", "--dependency-output", "k1.d",
                   "--dependency-target-name=k1.o", "-MF=k.d", "-c", "k.cu" };
    UNIT_STREQ("nvcc: long dependency options left out", keyed(&k, nv, N(nv), NULL), "-arch=sm_90 -c k.cu");
    char *d1[] = { "-DV=1", "-O2", "-c", "a.cpp" }, *d2[] = { "-DV=2", "-O2", "-c", "a.cpp" };
    char *o3[] = { "-DV=1", "-O3", "-c", "a.cpp" };
    UNIT_CHECK("-D still decides", !same_hash(&k, d1, N(d1), d2, N(d2)));
    UNIT_CHECK("-O still decides", !same_hash(&k, d1, N(d1), o3, N(o3)));
    char *m[] = { "-g", "-fdebug-prefix-map=/w=.", "-ffile-prefix-map=/w=.", "-L/lib", "-L", "x", "-Wl,-z,now", "-c", "a.c" };
    UNIT_STREQ("prefix maps, -L and -Wl, left out", keyed(&k, m, N(m), NULL), "-g -c a.c");
    setenv("CCACHE_IGNOREOPTIONS", "-Wno-* -DBUILD_ID=7", 1);
    tlcc_key_free(&k);
    tlcc_key_init(&k, TLCC_KEY_CCACHE, "/w/build", env_now());
    char *ig[] = { "-Wno-unused", "-DBUILD_ID=7", "-DBUILD_ID=8", "-c", "a.c" };
    UNIT_STREQ("ignore_options (with a * prefix)", keyed(&k, ig, N(ig), NULL), "-DBUILD_ID=8 -c a.c");
    unsetenv("CCACHE_IGNOREOPTIONS");
    tlcc_key_free(&k);
}

static void base_dirs(void)
{
    setenv("CCACHE_BASEDIR", "/ci", 1);
    tlcc_key_ctx k1, k2;
    tlcc_key_init(&k1, TLCC_KEY_CCACHE, "/ci/ck1/build", env_now());
    tlcc_key_init(&k2, TLCC_KEY_CCACHE, "/ci/ck2/build", env_now());
    char *a[] = { "-I/ci/ck1/include", "-isystem", "/ci/ck1/ext", "-DROOT=\"/ci/ck1\"", "-I/usr/include/x", "-c",
                  "/ci/ck1/src/b.cpp", "-o", "b.o" };
    UNIT_STREQ("ccache base_dir: paths relative to the working directory, -D values as written",
               keyed(&k1, a, N(a), NULL),
               "-I../include -isystem ../ext -DROOT=\"/ci/ck1\" -I/usr/include/x -c ../src/b.cpp");
    char *b[] = { "-I/ci/ck2/include", "-c", "/ci/ck2/src/b.cpp" }, *b1[] = { "-I/ci/ck1/include", "-c", "/ci/ck1/src/b.cpp" };
    UNIT_CHECK("two checkouts hash the same", tl_hash_equal(tlcc_key_hash(&k1, b1, N(b1)), tlcc_key_hash(&k2, b, N(b))));
    char *other[] = { "-I/ci/ck1/include2", "-c", "/ci/ck1/src/b.cpp" };
    UNIT_CHECK("another include directory still decides", !same_hash(&k1, b1, N(b1), other, N(other)));
    UNIT_STREQ("the recorded argv is normalized from its own working directory",
               keyed(&k1, b, N(b), "/ci/ck2/build"), "-I../include -c ../src/b.cpp");
    char *up[] = { "-I/ci/ck1/./x/../include", "--sysroot=/ci/sys", "-c", "/ci/ck1/b.c" };
    UNIT_STREQ("dot components and --sysroot=", keyed(&k1, up, N(up), NULL), "-I../include --sysroot=../../sys -c ../b.c");
    tlcc_key_free(&k1);
    setenv("CCACHE_BASEDIR", "", 1);
    tlcc_key_init(&k1, TLCC_KEY_CCACHE, "/ci/ck1/build", env_now());
    UNIT_STREQ("no base_dir: paths as written", keyed(&k1, b1, N(b1), NULL), "-I/ci/ck1/include -c /ci/ck1/src/b.cpp");
    tlcc_key_free(&k1);
    tlcc_key_free(&k2);
    unsetenv("CCACHE_BASEDIR");

    setenv("SCCACHE_BASEDIRS", "/ci/ck1:/ci/ck2:/ci", 1);
    tlcc_key_init(&k1, TLCC_KEY_SCCACHE, "/ci/ck1/build", env_now());
    UNIT_STREQ("sccache basedirs: the longest base directory stripped", keyed(&k1, b1, N(b1), NULL), "-Iinclude -c src/b.cpp");
    char *nb[] = { "-I/cix/include", "-c", "/ci/ck3/s.c" };
    UNIT_STREQ("sccache: only on a path boundary", keyed(&k1, nb, N(nb), NULL), "-I/cix/include -c ck3/s.c");
    tlcc_key_free(&k1);
    unsetenv("SCCACHE_BASEDIRS");
}

/* `kp`: what the preprocessor reads left out, as ccache keys a gcc or clang object (its preprocessor mode hashes
 * the preprocessed text and not ccache's AFFECTS_CPP options); `kh` keeps it all. */
static const char *keyed_pp(tlcc_key_ctx *k, char *const *argv, int argc)
{
    return keyed_as(k, argv, argc, NULL, 1);
}

static void preprocessor_options(void)
{
    unsetenv("CCACHE_BASEDIR");
    setenv("CCACHE_CONFIGPATH", "/nonexistent/ccache.conf", 1);
    tlcc_key_ctx k;
    tlcc_key_init(&k, TLCC_KEY_CCACHE, "/w/build", env_now());
    char *a[] = { "-DFMT_HEADER_ONLY=1", "-I/w/include", "-isystem", "/w/gtest", "-include", "pre.h", "-U", "NDEBUG",
                  "-Xpreprocessor", "-P", "-nostdinc++", "-O3", "-std=gnu++17", "-MD", "-MF", "x.d", "-c", "t.cc",
                  "-o", "t.o" };
    char *b[] = { "-I/w/include", "-isystem", "/w/gtest", "-O3", "-std=gnu++17", "-c", "t.cc", "-o", "u.o" };
    UNIT_STREQ("kp: -D, -I, -isystem, -include, -U, -Xpreprocessor, -nostdinc++ left out", keyed_pp(&k, a, N(a)),
               "-O3 -std=gnu++17 -c t.cc");
    UNIT_STREQ("kh: all of them kept", keyed(&k, a, N(a), NULL),
               "-DFMT_HEADER_ONLY=1 -I/w/include -isystem /w/gtest -include pre.h -U NDEBUG -Xpreprocessor -P "
               "-nostdinc++ -O3 -std=gnu++17 -c t.cc");
    tl_hash128 kh_a, kp_a, kh_b, kp_b;
    tlcc_key_hashes(&k, a, N(a), &kh_a, &kp_a);
    tlcc_key_hashes(&k, b, N(b), &kh_b, &kp_b);
    UNIT_CHECK("one pass gives kh as tlcc_key_hash does", tl_hash_equal(kh_a, tlcc_key_hash(&k, a, N(a))));
    UNIT_CHECK("kh: another -D set decides", !tl_hash_equal(kh_a, kh_b));
    UNIT_CHECK("kp: another -D set and include options do not (the preprocessed text does)", tl_hash_equal(kp_a, kp_b));
    char *c[] = { "-I/w/include", "-isystem", "/w/gtest", "-O2", "-std=gnu++17", "-c", "t.cc" };
    tl_hash128 kh_c, kp_c;
    tlcc_key_hashes(&k, c, N(c), &kh_c, &kp_c);
    UNIT_CHECK("kp: -O still decides", !tl_hash_equal(kp_b, kp_c));
    char *j[] = { "-DA", "-D", "B", "-Ifoo", "-I", "bar", "-Dx", "-c", "s.c" };
    UNIT_STREQ("kp: joined and separate spellings, values too", keyed_pp(&k, j, N(j)), "-c s.c");
    char *nv[] = { "-DX=1", "-arch=sm_90", "-c", "k.cu" };
    UNIT_STREQ("kh of an nvcc argv keeps -D", keyed(&k, nv, N(nv), NULL), "-DX=1 -arch=sm_90 -c k.cu");
    tlcc_key_free(&k);
    unsetenv("CCACHE_CONFIGPATH");
}

static void ccache_conf(void)
{
    char dir[] = "/tmp/tl-unit-key.XXXXXX", path[512];
    if (!mkdtemp(dir))
        return;
    snprintf(path, sizeof path, "%s/ccache.conf", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "# comment\nmax_size = 1G\nbase_dir = /ci\nignore_options = -Wno-*\n");
    fclose(f);
    unsetenv("CCACHE_BASEDIR");
    setenv("CCACHE_CONFIGPATH", path, 1);
    tlcc_key_ctx k;
    tlcc_key_init(&k, TLCC_KEY_CCACHE, "/ci/ck1/build", env_now());
    char *a[] = { "-Wno-x", "-I/ci/ck1/include", "-c", "b.c" };
    UNIT_STREQ("ccache.conf base_dir and ignore_options", keyed(&k, a, N(a), NULL), "-I../include -c b.c");
    tlcc_key_free(&k);
    setenv("CCACHE_BASEDIR", "/elsewhere", 1);
    tlcc_key_init(&k, TLCC_KEY_CCACHE, "/ci/ck1/build", env_now());
    UNIT_STREQ("CCACHE_BASEDIR overrides the file", keyed(&k, a, N(a), NULL), "-I/ci/ck1/include -c b.c");
    tlcc_key_free(&k);
    unsetenv("CCACHE_BASEDIR");
    unsetenv("CCACHE_CONFIGPATH");
    remove(path);
    rmdir(dir);
}

static void sccache_conf(void)
{
    char dir[] = "/tmp/tl-unit-key.XXXXXX", path[512];
    if (!mkdtemp(dir))
        return;
    snprintf(path, sizeof path, "%s/config", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "server_startup_timeout_ms = 10000\nbasedirs = [\"/ci/ck1\",\n  '/ci/ck2']\n[dist]\nbasedirs = [\"/wrong\"]\n");
    fclose(f);
    unsetenv("SCCACHE_BASEDIRS");
    setenv("SCCACHE_CONF", path, 1);
    tlcc_key_ctx k;
    tlcc_key_init(&k, TLCC_KEY_SCCACHE, "/ci/ck2/build", env_now());
    char *a[] = { "-I/ci/ck2/include", "-I/wrong/include", "-c", "/ci/ck1/src/b.cpp" };
    UNIT_STREQ("sccache config file: top-level basedirs over two lines, a table's key ignored", keyed(&k, a, N(a), NULL),
               "-Iinclude -I/wrong/include -c src/b.cpp");
    tlcc_key_free(&k);
    setenv("SCCACHE_BASEDIRS", "/wrong", 1);
    tlcc_key_init(&k, TLCC_KEY_SCCACHE, "/ci/ck2/build", env_now());
    UNIT_STREQ("SCCACHE_BASEDIRS instead of the file", keyed(&k, a, N(a), NULL),
               "-I/ci/ck2/include -Iinclude -c /ci/ck1/src/b.cpp");
    tlcc_key_free(&k);
    unsetenv("SCCACHE_BASEDIRS");
    unsetenv("SCCACHE_CONF");
    remove(path);
    rmdir(dir);
}

UNIT_MAIN(UNIT_CASE(dependency_options),
          UNIT_CASE(base_dirs),
          UNIT_CASE(preprocessor_options),
          UNIT_CASE(ccache_conf),
          UNIT_CASE(sccache_conf))
