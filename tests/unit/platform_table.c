/* checker/platform_table.c: the joined platform tables as the package verdict reads them, against facts of
 * auditwheel's policy data (conf/platform_libs.tsv and conf/manylinux.tsv are written from it): manylinux_2_17
 * allows libc.so.6 but not libmvec.so.1 (added in manylinux_2_24), musllinux_1_2 allows musl's x86_64 soname,
 * the dynamic loader is always allowed, GLIBC maxima compare as versions (2.9 < 2.17). */
#include <stdlib.h>
#include <string.h>

#include "conf_file.h"
#include "platform_table.h"
#include "unit.h"

static void versions(void)
{
    UNIT_CHECK("2.9 < 2.17 (numbers, not text)", tlck_version_cmp("2.9", "2.17") == -1);
    UNIT_CHECK("3.4.24 > 3.4.9", tlck_version_cmp("3.4.24", "3.4.9") == 1);
    UNIT_CHECK("2.17 == 2.17", tlck_version_cmp("2.17", "2.17") == 0);
    UNIT_CHECK("2.17 < 2.17.1", tlck_version_cmp("2.17", "2.17.1") == -1);
    UNIT_CHECK("PRIVATE is no version", tlck_version_cmp("PRIVATE", "2.17") == 2);
    UNIT_CHECK("a trailing dot is no version", tlck_version_cmp("2.", "2.17") == 2);
}

static void libraries(void)
{
    struct tlck_platform row;
    memset(&row, 0, sizeof row);
    strcpy(row.tag, "manylinux_2_17");
    row.libs = strdup(",libc.so.6,libm.so.6,libstdc++.so.6,");
    UNIT_CHECK("listed", tlck_platform_allows_lib(&row, "libm.so.6"));
    UNIT_CHECK("not listed", !tlck_platform_allows_lib(&row, "libcuda.so.1"));
    UNIT_CHECK("a prefix of a listed name is not listed", !tlck_platform_allows_lib(&row, "libm.so"));
    UNIT_CHECK("a listed name inside a longer one is not listed", !tlck_platform_allows_lib(&row, "c.so.6"));
    UNIT_CHECK("the dynamic loader always", tlck_platform_allows_lib(&row, "ld-linux-x86-64.so.2"));
    free(row.libs);
}

static void tables(void)
{
    struct tlck_platforms t;
    struct tlck_floors floors = { 0 };
    tl_error err;
    FILE *fp = tlck_conf_open("manylinux.tsv", NULL, 0);
    if (!fp)
        UNIT_SKIP("conf/manylinux.tsv not found from this build directory");
    int read = tlck_floors_read(&floors, fp);
    fclose(fp);
    UNIT_CHECK("manylinux.tsv is read", read == 0 && floors.n > 0);
    if (tlck_platforms_load(&t, &floors, NULL, 0, &err) != 0) {
        tlck_floors_free(&floors);
        UNIT_SKIP("conf/platform_libs.tsv not found from this build directory");
    }
    const struct tlck_platform *m17 = tlck_platform_find(&t, "manylinux_2_17");
    const struct tlck_platform *m24 = tlck_platform_find(&t, "manylinux_2_24");
    const struct tlck_platform *legacy = tlck_platform_find(&t, "MANYLINUX2014");
    const struct tlck_platform *musl = tlck_platform_find(&t, "musllinux_1_2");
    UNIT_CHECK("manylinux_2_17, manylinux_2_24, manylinux2014 (any case), musllinux_1_2 are rows",
               m17 && m24 && legacy && musl);
    if (!m17 || !m24 || !legacy || !musl)
        goto done;
    UNIT_CHECK("manylinux_2_17 allows libc.so.6", tlck_platform_allows_lib(m17, "libc.so.6"));
    UNIT_CHECK("manylinux_2_17 does not allow libmvec.so.1", !tlck_platform_allows_lib(m17, "libmvec.so.1"));
    UNIT_CHECK("manylinux_2_24 allows libmvec.so.1", tlck_platform_allows_lib(m24, "libmvec.so.1"));
    UNIT_STREQ("manylinux_2_17's GLIBC maximum (joined from manylinux.tsv)", m17->max[TLCK_VER_GLIBC], "2.17");
    UNIT_STREQ("manylinux_2_17's GLIBCXX maximum", m17->max[TLCK_VER_GLIBCXX], "3.4.19");
    UNIT_CHECK("manylinux2014 has manylinux_2_17's facts", strcmp(legacy->libs, m17->libs) == 0 &&
               memcmp(legacy->max, m17->max, sizeof m17->max) == 0);
    UNIT_CHECK("musllinux_1_2 allows musl's x86_64 soname", tlck_platform_allows_lib(musl, "libc.musl-x86_64.so.1"));
    UNIT_CHECK("musllinux_1_2 does not allow glibc", !tlck_platform_allows_lib(musl, "libc.so.6"));
    UNIT_CHECK("musllinux_1_2 has no symbol-version maxima", musl->max[TLCK_VER_GLIBC][0] == 0);
    UNIT_CHECK("the most compatible manylinux tag comes first", strcmp(t.v[0].tag, "manylinux_2_5") == 0);
done:
    tlck_platforms_free(&t);
    tlck_floors_free(&floors);
}

UNIT_MAIN(UNIT_CASE(versions), UNIT_CASE(libraries), UNIT_CASE(tables))
