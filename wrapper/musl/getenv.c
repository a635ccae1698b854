/* Built only into the musl-linked trueline-cc (Makefile, WRAPPER_MUSL), in place of musl's getenv.
 *
 * A warm wrapper run makes ~25 lookups (configuration overrides, PATH, the recursion guard, the folded
 * flag variables) in an environment of ~40 entries. musl compares every entry with a byte-by-byte strncmp,
 * which was 8 % of the run's instructions (callgrind). Same contract as getenv(3): the first definition wins,
 * a name with '=' or an empty name finds nothing. The comparison is an inline loop (a strncmp call per
 * entry whose first byte matched was still 7 % in the seventh session). */
#include <stdlib.h>
#include <string.h>

extern char **environ;

char *getenv(const char *name)
{
    size_t len = (size_t)(strchrnul(name, '=') - name);
    if (!len || name[len] || !environ)
        return NULL;
    for (char **e = environ; *e; e++) {
        /* inline, not strncmp: name has no NUL before len, so a match never runs past the entry's end */
        const char *s = *e;
        size_t i = 0;
        while (i < len && s[i] == name[i])
            i++;
        if (i == len && s[len] == '=')
            return (char *)s + len + 1;
    }
    return NULL;
}
