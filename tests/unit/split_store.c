/* checker/read/debug_store.c's layout and checker/split/store_write.c's writes: the path gdb and debuginfod
 * expect for a build-id (checked against the same path spelt by hand), bounds, atomic writes that leave no
 * temporary file, a part already stored left alone, a store that cannot be written an error. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/debug_store.h"
#include "split/store_write.h"
#include "unit.h"

static void path_layout(void)
{
    const unsigned char id[] = { 0x83, 0xbc, 0xb8, 0x6e, 0x00, 0xff };
    char out[128];
    UNIT_CHECK("fits", tlck_store_path("/s", id, sizeof id, out, sizeof out) == 0);
    UNIT_STREQ("NN/REST.debug", out, "/s/.build-id/83/bcb86e00ff.debug");
    UNIT_CHECK("an id of one byte has no REST", tlck_store_path("/s", id, 1, out, sizeof out) == -1);
    UNIT_CHECK("too small a buffer", tlck_store_path("/s", id, sizeof id, out, 20) == -1);
    UNIT_CHECK("exactly large enough", tlck_store_path("/s", id, sizeof id, out, strlen("/s/.build-id/83/bcb86e00ff.debug") + 1) == 0);
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void put_and_again(void)
{
    char dir[] = "/tmp/tl-unit-store.XXXXXX", err[256], where[4096], sub[4200];
    if (!mkdtemp(dir))
        UNIT_SKIP("no temporary directory");
    const unsigned char id[] = { 0xab, 0xcd, 0xef };
    UNIT_CHECK("put", tlck_store_put(dir, id, sizeof id, "ELF!", 4, where, sizeof where, err, sizeof err) == 0);
    struct stat st;
    UNIT_CHECK("written where the layout says", stat(where, &st) == 0 && st.st_size == 4 && (st.st_mode & 0777) == 0644);
    snprintf(sub, sizeof sub, "%s/.build-id/ab", dir);
    UNIT_CHECK("no temporary file beside it", entries(sub) == 1);
    ino_t ino = st.st_ino;
    UNIT_CHECK("the same bytes again", tlck_store_put(dir, id, sizeof id, "ELF!", 4, NULL, 0, err, sizeof err) == 0);
    UNIT_CHECK("left alone (same inode)", stat(where, &st) == 0 && st.st_ino == ino);
    UNIT_CHECK("other bytes replace it", tlck_store_put(dir, id, sizeof id, "ELF?!", 5, NULL, 0, err, sizeof err) == 0 &&
                                         stat(where, &st) == 0 && st.st_size == 5);
    /* a file where the store's directory must go: an error naming it, nothing written */
    char blocked[4200];
    snprintf(blocked, sizeof blocked, "%s/blocked", dir);
    FILE *f = fopen(blocked, "w");
    if (f)
        fclose(f);
    UNIT_CHECK("a store that cannot be made is an error",
               tlck_store_put(blocked, id, sizeof id, "x", 1, NULL, 0, err, sizeof err) == -1 && strstr(err, blocked));
    unlink(where);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/.build-id", dir);
    rmdir(sub);
    unlink(blocked);
    rmdir(dir);
}

UNIT_MAIN(UNIT_CASE(path_layout), UNIT_CASE(put_and_again))
