/* Atomic writes: a temporary file in the destination's directory, renamed over the destination once complete,
 * so that a reader (a debuginfod scan, a loader, the next build) sees the old file or the new one, never half. */
#ifndef TLCK_STORE_WRITE_H
#define TLCK_STORE_WRITE_H
#include <stddef.h>
#include <sys/types.h>

struct tlck_atomic {
    char tmp[4096];
    char dest[4096];
    int fd;
};

/* Opens a temporary file beside dest (its directory made when mkdirs). 0, or -1 with err naming the directory. */
int tlck_atomic_open(struct tlck_atomic *a, const char *dest, int mkdirs, char *err, size_t errlen);
/* fsync, chmod to mode, rename over dest. 0, or -1 with err (the temporary file is removed). */
int tlck_atomic_commit(struct tlck_atomic *a, mode_t mode, char *err, size_t errlen);
/* Removes the temporary file (after a failure). */
void tlck_atomic_abort(struct tlck_atomic *a);

/* The whole of (p, n) to dest, atomically. */
int tlck_atomic_write(const char *dest, const void *p, size_t n, mode_t mode, int mkdirs, char *err, size_t errlen);

/* Writes one debug file into the store under its build-id (id, idlen): STORE/.build-id/NN/REST.debug. A file
 * already there with the same bytes is left alone. out (may be NULL) gets the path. */
int tlck_store_put(const char *store, const unsigned char *id, size_t idlen, const void *p, size_t n, char *out,
                   size_t outlen, char *err, size_t errlen);

#endif
