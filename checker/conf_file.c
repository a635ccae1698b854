#include "conf_file.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

#ifndef TL_DATADIR
#define TL_DATADIR "/usr/local/share/trueline"
#endif
#ifndef TL_SOURCE_CONF
#define TL_SOURCE_CONF "conf"
#endif

FILE *tlck_conf_open(const char *name, char *found, size_t cap)
{
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    FILE *fp = NULL;
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        snprintf(path, sizeof path, "%s/../share/trueline/%s", exe, name);
        if (!(fp = fopen(path, "r"))) {
            snprintf(path, sizeof path, "%s/../../conf/%s", exe, name);
            fp = fopen(path, "r");
        }
    }
    if (!fp) {
        snprintf(path, sizeof path, "%s/%s", TL_DATADIR, name);
        fp = fopen(path, "r");
    }
    if (!fp) {
        snprintf(path, sizeof path, "%s/%s", TL_SOURCE_CONF, name);
        fp = fopen(path, "r");
    }
    if (fp && found)
        snprintf(found, cap, "%s", path);
    return fp;
}

int tlck_tsv_each(FILE *fp, int (*row)(char **field, size_t n, void *ctx), void *ctx)
{
    char line[4096];
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#' || strncmp(line, "tag\t", 4) == 0)
            continue;
        char *field[8], *save = NULL;
        size_t n = 0;
        for (char *s = strtok_r(line, " \t\r\n\v\f", &save); s && n < 8; s = strtok_r(NULL, " \t\r\n\v\f", &save))
            field[n++] = s;
        int rc = n ? row(field, n, ctx) : 0;
        if (rc)
            return rc;
    }
    return 0;
}
