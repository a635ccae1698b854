/* checker/read/debug_store.c: the store path is the .build-id layout debuginfod and gdb read (the expected
 * strings are spelt out from that layout, not from our output), and store_find on a store made here: found,
 * not found, a store that is no directory, DEBUGINFOD_URLS unset so that nothing leaves the machine. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/debug_store.h"

static void test_store_path(void)
{
    const unsigned char id[] = { 0xab, 0xcd, 0xef, 0x01, 0x23 };
    char out[256];
    UNIT_CHECK("five bytes", tlck_store_path("/s", id, sizeof id, out, sizeof out) == 0);
    UNIT_STREQ("NN/REST.debug under .build-id", out, "/s/.build-id/ab/cdef0123.debug");
    UNIT_CHECK("trailing slashes", tlck_store_path("/s//", id, sizeof id, out, sizeof out) == 0);
    UNIT_STREQ("one slash kept", out, "/s/.build-id/ab/cdef0123.debug");
    UNIT_CHECK("two bytes is the least", tlck_store_path("d", id, 2, out, sizeof out) == 0);
    UNIT_STREQ("two bytes", out, "d/.build-id/ab/cd.debug");
    UNIT_CHECK("one byte refused", tlck_store_path("d", id, 1, out, sizeof out) == -1);
    size_t exact = strlen("/s/.build-id/ab/cdef0123.debug") + 1;
    UNIT_CHECK("fits exactly", tlck_store_path("/s", id, sizeof id, out, exact) == 0);
    UNIT_CHECK("one byte short refused", tlck_store_path("/s", id, sizeof id, out, exact - 1) == -1);
    unsigned char id16[16];
    for (int i = 0; i < 16; i++)
        id16[i] = (unsigned char)(0x10 * (i % 16) + i);
    UNIT_CHECK("a device identity (16 bytes)", tlck_store_path("S", id16, 16, out, sizeof out) == 0);
    UNIT_STREQ("32 hex digits, split 2 + 30", out, "S/.build-id/00/112233445566778899aabbccddeeff.debug");
}

static void test_store_find(void)
{
    char dir[] = "/tmp/tl-unit-store.XXXXXX";
    UNIT_CHECK("scratch dir", mkdtemp(dir) != NULL);
    unsetenv("DEBUGINFOD_URLS");
    const unsigned char id[] = { 0x12, 0x34, 0x56, 0x78 };
    char path[512], sub[512], out[512], err[256];
    snprintf(sub, sizeof sub, "%s/.build-id/12", dir);
    snprintf(path, sizeof path, "%s/.build-id/12/345678.debug", dir);
    UNIT_CHECK("not there yet: 1", tlck_store_find(dir, id, sizeof id, out, sizeof out, err, sizeof err) == 1);
    mkdir(strcat(strcpy(out, dir), "/.build-id"), 0755);
    mkdir(sub, 0755);
    FILE *f = fopen(path, "w");
    UNIT_CHECK("part written", f != NULL);
    if (f)
        fclose(f);
    UNIT_CHECK("found: 0", tlck_store_find(dir, id, sizeof id, out, sizeof out, err, sizeof err) == 0);
    UNIT_STREQ("its path", out, path);
    const unsigned char other[] = { 0x12, 0x34, 0x56, 0x79 };
    UNIT_CHECK("another id: 1", tlck_store_find(dir, other, sizeof other, out, sizeof out, err, sizeof err) == 1);
    UNIT_CHECK("no store, no servers: 1", tlck_store_find(NULL, id, sizeof id, out, sizeof out, err, sizeof err) == 1);
    UNIT_CHECK("a store that is a file: -1", tlck_store_find(path, id, sizeof id, out, sizeof out, err, sizeof err) == -1);
    UNIT_CHECK("  named in the message", strstr(err, "not a directory") && strstr(err, path));
    char gone[600];
    snprintf(gone, sizeof gone, "%s/none", dir);
    UNIT_CHECK("a store that does not exist: -1",
               tlck_store_find(gone, id, sizeof id, out, sizeof out, err, sizeof err) == -1 && strstr(err, gone));
    UNIT_CHECK("a directory at the part's path is no part", unlink(path) == 0 && mkdir(path, 0755) == 0 &&
               tlck_store_find(dir, id, sizeof id, out, sizeof out, err, sizeof err) == 1);
    rmdir(path);
    rmdir(sub);
    snprintf(out, sizeof out, "%s/.build-id", dir);
    rmdir(out);
    rmdir(dir);
}

UNIT_MAIN(UNIT_CASE(test_store_path), UNIT_CASE(test_store_find))
