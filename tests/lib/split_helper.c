/* Test helper for tests/suites/split_lookup.sh, built there against the build's objects:
 *   split_helper id FILE...        the identity (read/device_identity.h) of each device image file, as the debug
 *                                  store spells it (32 hex digits), one per line
 *   split_helper strip IN OUT      IN without its line sections, by the split's own tlck_cubin_strip_lines
 *   split_helper part IN STORE     IN plus its build-id note (tlck_cubin_add_build_id) written where the store
 *                                  keeps it (tlck_store_path); prints the path
 * The suite keys the parts it writes by what the tool under test computes, then checks that a stripped image
 * and a GPU core's relocated copy of it find them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/debug_store.h"
#include "read/store_lookup.h"
#include "split/fatbin_split.h"

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)len)) && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    *n = len > 0 ? (size_t)len : 0;
    if (!buf)
        fprintf(stderr, "%s: cannot read\n", path);
    return buf;
}

static int spill(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "%s: cannot write\n", path);
    return ok ? 0 : 2;
}

static int mkdirs_for(char *path)
{
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(path, 0755);
        *s = '/';
    }
    return 0;
}

int main(int argc, char **argv)
{
    char err[512], hex[2 * TLCK_DEVICE_ID_LEN + 1];
    unsigned char id[TLCK_DEVICE_ID_LEN], *out = NULL;
    size_t n, out_n;
    if (argc >= 3 && strcmp(argv[1], "id") == 0) {
        int rc = 0;
        for (int i = 2; i < argc; i++) {
            unsigned char *p = slurp(argv[i], &n);
            if (!p || tlck_device_identity(p, n, id, err, sizeof err) != 0) {
                if (p)
                    fprintf(stderr, "%s: %s\n", argv[i], err);
                rc = 2;
            } else {
                tlck_device_id_hex(id, hex);
                printf("%s\n", hex);
            }
            free(p);
        }
        return rc;
    }
    if (argc == 4 && strcmp(argv[1], "strip") == 0) {
        unsigned char *p = slurp(argv[2], &n);
        int rc = p ? tlck_cubin_strip_lines(p, n, &out, &out_n, err, sizeof err) : -1;
        if (rc < 0 && p)
            fprintf(stderr, "%s: %s\n", argv[2], err);
        if (rc == 1)
            fprintf(stderr, "%s: no line sections\n", argv[2]);
        rc = rc == 0 ? spill(argv[3], out, out_n) : 2;
        free(p);
        free(out);
        return rc;
    }
    if (argc == 4 && strcmp(argv[1], "part") == 0) {
        char path[4096];
        unsigned char *p = slurp(argv[2], &n);
        int rc = 2;
        if (p && tlck_device_identity(p, n, id, err, sizeof err) == 0 &&
            tlck_cubin_add_build_id(p, n, id, sizeof id, &out, &out_n, err, sizeof err) == 0 &&
            tlck_store_path(argv[3], id, sizeof id, path, sizeof path) == 0 && mkdirs_for(path) == 0)
            rc = spill(path, out, out_n);
        else if (p)
            fprintf(stderr, "%s: %s\n", argv[2], err);
        if (rc == 0)
            printf("%s\n", path);
        free(p);
        free(out);
        return rc;
    }
    fprintf(stderr, "usage: split_helper id FILE... | strip IN OUT | part IN STORE\n");
    return 2;
}
