/* Test helper: prints the identity (read/device_identity.h) of each device image file named, as the debug
 * store spells it (32 hex digits), one per line. Built by tests/suites/split_lookup.sh against the build's
 * objects: the test keys the store parts it writes by what the tool under test computes, then checks that a
 * stripped image and a GPU core's relocated copy of it find them. */
#include <stdio.h>
#include <stdlib.h>

#include "read/store_lookup.h"

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        unsigned char *buf = NULL;
        long n = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n)
            n = -1;
        if (f)
            fclose(f);
        unsigned char id[TLCK_DEVICE_ID_LEN];
        char err[256], hex[2 * TLCK_DEVICE_ID_LEN + 1];
        if (n <= 0 || !buf) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            rc = 2;
        } else if (tlck_device_identity(buf, (size_t)n, id, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], err);
            rc = 2;
        } else {
            tlck_device_id_hex(id, hex);
            printf("%s\n", hex);
        }
        free(buf);
    }
    return rc;
}
