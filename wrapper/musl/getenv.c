/* Built only into the musl-linked trueline-cc (Makefile, WRAPPER_MUSL), in place of musl's getenv.
 *
 * A warm wrapper run makes ~25 lookups (configuration overrides, PATH, the recursion guard, the folded
 * flag variables) in an environment of ~40 entries. musl compares every entry with a byte-by-byte strncmp,
 * which was 8 % of the run's instructions (callgrind). Same contract as getenv(3): the first definition wins,
 * a name with '=' or an empty name finds nothing. Only the first byte is tested before strncmp. */
#include <stdlib.h>
#include <string.h>

extern char **environ;

char *getenv(const char *name)
{
    size_t len = (size_t)(strchrnul(name, '=') - name);
    if (!len || name[len] || !environ)
        return NULL;
    for (char **e = environ; *e; e++)
        if ((*e)[0] == name[0] && strncmp(name, *e, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}
