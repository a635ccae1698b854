/* The debug store: a directory in the layout a debuginfod server indexes (`debuginfod -F STORE`) and that
 * gdb's `debug-file-directory` reads: STORE/.build-id/NN/REST.debug, NN REST being the build-id in hex.
 * Every file in it is an ELF file carrying a GNU build-id note (NT_GNU_BUILD_ID), which is how debuginfod
 * indexes it:
 *   - host: the file's debug sections, as `eu-strip -f` writes them, under the file's own build-id;
 *   - device: the cubin as built (with its line sections) plus a `.note.gnu.build-id` section whose id is the
 *     image's identity (read/device_identity.h).
 * Lookups try the local directory, then DEBUGINFOD_URLS through libdebuginfod where the build has it. */
#ifndef TLCK_DEBUG_STORE_H
#define TLCK_DEBUG_STORE_H
#include <stddef.h>

/* DIR/.build-id/NN/REST.debug into out (NUL-terminated); -1 when it does not fit or idlen < 2. */
int tlck_store_path(const char *dir, const unsigned char *id, size_t idlen, char *out, size_t outlen);

/* Where the debug file of build-id id can be read: STORE (may be NULL) first, then the servers of
 * DEBUGINFOD_URLS (when set and the build has libdebuginfod). Writes the path of a local file into out and
 * returns 0; 1 when no source has it; -1 on an error (err says which, e.g. a store that is not a directory). */
int tlck_store_find(const char *store, const unsigned char *id, size_t idlen, char *out, size_t outlen, char *err,
                    size_t errlen);

#endif
