/* The debug store's lookups (read/debug_store.h): the local directory in the layout debuginfod indexes and
 * gdb reads, then the servers of DEBUGINFOD_URLS through libdebuginfod (optional at build time: without it the
 * variable is not read, and a lookup that only a server could answer finds nothing). */
#include "read/debug_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef TL_HAVE_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#endif

int tlck_store_path(const char *dir, const unsigned char *id, size_t idlen, char *out, size_t outlen)
{
    static const char hex[] = "0123456789abcdef";
    if (!dir || !id || idlen < 2 || !out)
        return -1;
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') /* "STORE/" and "STORE" name the same files */
        dl--;
    /* DIR "/.build-id/" NN "/" REST ".debug" NUL */
    size_t need = dl + 11 + 2 + 1 + 2 * (idlen - 1) + 6 + 1;
    if (need > outlen)
        return -1;
    char *p = out;
    memcpy(p, dir, dl);
    p += dl;
    memcpy(p, "/.build-id/", 11);
    p += 11;
    *p++ = hex[id[0] >> 4];
    *p++ = hex[id[0] & 15];
    *p++ = '/';
    for (size_t i = 1; i < idlen; i++) {
        *p++ = hex[id[i] >> 4];
        *p++ = hex[id[i] & 15];
    }
    memcpy(p, ".debug", 7);
    return 0;
}

static int local_find(const char *store, const unsigned char *id, size_t idlen, char *out, size_t outlen, char *err,
                      size_t errlen)
{
    struct stat st;
    if (stat(store, &st) != 0) {
        snprintf(err, errlen, "debug store %s: %s", store, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "debug store %s: not a directory", store);
        return -1;
    }
    if (tlck_store_path(store, id, idlen, out, outlen) != 0) {
        snprintf(err, errlen, "debug store %s: path too long", store);
        return -1;
    }
    if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
        return 0;
    return 1;
}

#ifdef TL_HAVE_DEBUGINFOD
/* The client's three entry points, from libdebuginfod.so.1 opened at the first lookup that needs a server. */
struct client_api {
    debuginfod_client *(*begin)(void);
    int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
    void (*end)(debuginfod_client *);
};

static int client_api(struct client_api *a, char *err, size_t errlen)
{
    void *lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errlen, "DEBUGINFOD_URLS is set but libdebuginfod.so.1 cannot be loaded: %s", dlerror());
        return -1;
    }
    /* kept loaded for the process: libcurl's global state must not be unloaded under later lookups */
    *(void **)&a->begin = dlsym(lib, "debuginfod_begin");
    *(void **)&a->find_debuginfo = dlsym(lib, "debuginfod_find_debuginfo");
    *(void **)&a->end = dlsym(lib, "debuginfod_end");
    if (!a->begin || !a->find_debuginfo || !a->end) {
        snprintf(err, errlen, "libdebuginfod.so.1 lacks the debuginfod_find_debuginfo client API");
        return -1;
    }
    return 0;
}

/* 1 when no server has it (or none is configured); -1 when the servers could not be asked. */
static int server_find(const unsigned char *id, size_t idlen, char *out, size_t outlen, char *err, size_t errlen)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (!urls || !*urls)
        return 1;
    struct client_api api;
    if (client_api(&api, err, errlen) != 0)
        return -1;
    debuginfod_client *c = api.begin();
    if (!c) {
        snprintf(err, errlen, "DEBUGINFOD_URLS: the debuginfod client could not start");
        return -1;
    }
    char *path = NULL;
    int fd = api.find_debuginfo(c, id, (int)idlen, &path);
    api.end(c);
    if (fd < 0) {
        free(path);
        if (fd == -ENOENT)
            return 1;
        snprintf(err, errlen, "DEBUGINFOD_URLS=%s: %s", urls, strerror(-fd));
        return -1;
    }
    close(fd);
    int rc = 0;
    if (!path || strlen(path) + 1 > outlen) {
        snprintf(err, errlen, "DEBUGINFOD_URLS: the client's cache path is too long");
        rc = -1;
    } else
        memcpy(out, path, strlen(path) + 1);
    free(path);
    return rc;
}
#endif

int tlck_store_find(const char *store, const unsigned char *id, size_t idlen, char *out, size_t outlen, char *err,
                    size_t errlen)
{
    char dummy[1];
    if (!err)
        err = dummy, errlen = sizeof dummy;
    if (!id || idlen < 2 || !out) {
        snprintf(err, errlen, "a build-id needs at least 2 bytes");
        return -1;
    }
    if (store) {
        int rc = local_find(store, id, idlen, out, outlen, err, errlen);
        if (rc <= 0)
            return rc;
    }
#ifdef TL_HAVE_DEBUGINFOD
    return server_find(id, idlen, out, outlen, err, errlen);
#else
    return 1;
#endif
}
