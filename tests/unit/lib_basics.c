/* Unit tests for lib/: hashing, hex round trip, config lookup order and environment overrides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trueline/config.h"
#include "trueline/hash.h"
#include "unit.h"

static void test_hash(void)
{
    tl_hash128 a = tl_hash_bytes("abc", 3), b = tl_hash_bytes("abd", 3), c;
    char hex[TL_HASH_HEX_LEN + 1];
    UNIT_CHECK("different inputs hash differently", !tl_hash_equal(a, b));
    tl_hash_hex(a, hex);
    UNIT_CHECK("hex is 32 digits", strlen(hex) == 32);
    UNIT_CHECK("hex parses back", tl_hash_from_hex(hex, &c) == 0 && tl_hash_equal(a, c));
    UNIT_CHECK("bad hex rejected", tl_hash_from_hex("xyz", &c) != 0);
    tl_hasher *h1 = tl_hasher_new(), *h2 = tl_hasher_new();
    tl_hasher_update_str(h1, "ab");
    tl_hasher_update_str(h1, "c");
    tl_hasher_update_str(h2, "a");
    tl_hasher_update_str(h2, "bc");
    UNIT_CHECK("length-prefixed parts do not collide", !tl_hash_equal(tl_hasher_final(h1), tl_hasher_final(h2)));
}

static void test_config(void)
{
    char dir[] = "/tmp/tl-unit-XXXXXX", path[256];
    UNIT_CHECK("mkdtemp", mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/t.ini", dir);
    FILE *f = fopen(path, "w");
    fputs("[wrapper]\nlineinfo = on\nhost-level = g1\n[checks]\nstl-leak = warning\n", f);
    fclose(f);
    tl_config cfg = { 0 };
    tl_error err;
    setenv("TRUELINE_CONFIG", path, 1);
    UNIT_CHECK("explicit config loads", tl_config_load(&cfg, &err) == 0);
    UNIT_STREQ("value read", tl_config_get(&cfg, "checks", "stl-leak"), "warning");
    UNIT_CHECK("bool read", tl_config_bool(&cfg, "wrapper", "lineinfo", 0) == 1);
    setenv("TRUELINE_WRAPPER_HOST_LEVEL", "keep", 1);
    UNIT_STREQ("environment overrides file", tl_config_get(&cfg, "wrapper", "host-level"), "keep");
    UNIT_CHECK("missing key is NULL", tl_config_get(&cfg, "wrapper", "nope") == NULL);
    tl_config_free(&cfg);
    f = fopen(path, "w");
    fputs("[wrapper\nbroken\n", f);
    fclose(f);
    UNIT_CHECK("syntax error reported", tl_config_load(&cfg, &err) != 0 && strstr(err.msg, "t.ini") != NULL);
    tl_config_free(&cfg);
    setenv("TRUELINE_CONFIG", "/nonexistent/x.ini", 1);
    UNIT_CHECK("named but missing config is an error", tl_config_load(&cfg, &err) != 0);
    tl_config_free(&cfg);
    unlink(path);
    rmdir(dir);
}

UNIT_MAIN(UNIT_CASE(test_hash), UNIT_CASE(test_config))
