#include "run/warn_once.h"

#include "trueline/hash.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int tlcc_warn_once(const char *tmp, const char *about, unsigned period_s)
{
    char hex[TL_HASH_HEX_LEN + 1], path[4096];
    tl_hash_hex(tl_hash_bytes(about, strlen(about)), hex);
    snprintf(path, sizeof path, "%s/trueline-%ld-warned-%.16s", tmp && *tmp ? tmp : "/tmp", (long)getuid(), hex);
    struct stat st;
    time_t now = time(NULL);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() && now - st.st_mtime < (time_t)period_s &&
        st.st_mtime <= now)
        return 0;
    /* a fresh marker: O_NOFOLLOW so that nobody's link in a shared /tmp redirects the write */
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    return 1;
}
