/* Atomic writes into the output directory and the debug store (store_write.h). */
#include "split/store_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/debug_store.h"
#include "trueline/files.h"

int tlck_atomic_open(struct tlck_atomic *a, const char *dest, int mkdirs, char *err, size_t errlen)
{
    a->fd = -1;
    if (snprintf(a->dest, sizeof a->dest, "%s", dest) >= (int)sizeof a->dest) {
        snprintf(err, errlen, "%s: path too long", dest);
        return -1;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", dest);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    if (mkdirs && tl_mkdirs(dir, 0755) != 0) {
        snprintf(err, errlen, "%s: cannot create the directory: %s", dir, strerror(errno));
        return -1;
    }
    const char *base = slash ? dest + (slash - dir) + 1 : dest;
    snprintf(a->tmp, sizeof a->tmp, "%.3800s/.%.200s.tl-XXXXXX", dir, base);
    a->fd = mkstemp(a->tmp);
    if (a->fd < 0) {
        snprintf(err, errlen, "%s: cannot write there: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

void tlck_atomic_abort(struct tlck_atomic *a)
{
    if (a->fd >= 0) {
        close(a->fd);
        unlink(a->tmp);
        a->fd = -1;
    }
}

int tlck_atomic_commit(struct tlck_atomic *a, mode_t mode, char *err, size_t errlen)
{
    /* fsync before the rename: after a crash the name holds the old bytes or the whole new file */
    if (fchmod(a->fd, mode) != 0 || fsync(a->fd) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", a->dest, strerror(errno));
        tlck_atomic_abort(a);
        return -1;
    }
    if (close(a->fd) != 0) {
        a->fd = -1;
        snprintf(err, errlen, "%s: cannot write: %s", a->dest, strerror(errno));
        unlink(a->tmp);
        return -1;
    }
    a->fd = -1;
    if (rename(a->tmp, a->dest) != 0) {
        snprintf(err, errlen, "%s: cannot rename into place: %s", a->dest, strerror(errno));
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

int tlck_atomic_write(const char *dest, const void *p, size_t n, mode_t mode, int mkdirs, char *err, size_t errlen)
{
    struct tlck_atomic a;
    if (tlck_atomic_open(&a, dest, mkdirs, err, errlen) != 0)
        return -1;
    if (tl_write_all(a.fd, p, n) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", dest, strerror(errno));
        tlck_atomic_abort(&a);
        return -1;
    }
    return tlck_atomic_commit(&a, mode, err, errlen);
}

static int same_content(const char *path, const void *p, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int same = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n) {
        unsigned char *buf = malloc(n ? n : 1);
        if (buf && read(fd, buf, n) == (ssize_t)n)
            same = memcmp(buf, p, n) == 0;
        free(buf);
    }
    close(fd);
    return same;
}

int tlck_store_put(const char *store, const unsigned char *id, size_t idlen, const void *p, size_t n, char *out,
                   size_t outlen, char *err, size_t errlen)
{
    char path[4096];
    if (tlck_store_path(store, id, idlen, path, sizeof path) != 0) {
        snprintf(err, errlen, "%s: store path too long", store);
        return -1;
    }
    if (out)
        snprintf(out, outlen, "%s", path);
    /* the same build split twice: the store already holds it (and a read-only store that has it is no error) */
    if (same_content(path, p, n))
        return 0;
    return tlck_atomic_write(path, p, n, 0644, 1, err, errlen);
}
