/* The [provenance] settings (conf/trueline.ini, TRUELINE_PROVENANCE_<KEY> overrides), read once from the
 * configuration main loaded (prov_config.c):
 *   stamp = true        record .note.trueline in every -c object (and link outputs, see `links`)
 *   verify = true       check the record after every cached compile
 *   on_mismatch = recompile | fail
 *   record_argv = true  put the effective argv in the record (false: only its hash)
 *   argv_max = 4096     bytes of argv recorded (cut at an element boundary)
 *   links = true        record links (executables, shared objects, ld -r) as link records
 *   verify_in_cache = true  verify a ccache hit inside ccache's process (verify_in_cache.c)
 *   key_file = PATH     authenticate records with a MAC keyed by the file's bytes (provenance_mac.c)
 * and, because the split runs just before the stamp and only on stamped compiles, [wrapper] line_info_store
 * (line_split.h). */
#ifndef TLCC_WRAPPER_PROV_CONFIG_H
#define TLCC_WRAPPER_PROV_CONFIG_H
#include <stddef.h>

#include "provenance/provenance_mac.h"
#include "trueline/config.h"

typedef struct tlcc_prov_config {
    int stamp, links, verify, fail, in_cache;
    size_t argv_max;       /* 0 with record_argv = false */
    tlcc_mac_key mac;      /* loaded from key_file; mac.bytes NULL when no key is configured */
    char *key_path;        /* its absolute path, for the stamping stage (heap: this lives in main's frame) */
    char *line_store;      /* [wrapper] line_info_store, absolute; NULL: device line info is not split out */
} tlcc_prov_config;

/* Every value is checked as it is read; a bad one takes its default, and the first bad value is the error
 * (-1 with err naming the key, where it was set and the valid values; err NULL: no message). */
int tlcc_prov_config_read(const tl_config *cfg, tlcc_prov_config *p, tl_error *err);
void tlcc_prov_config_free(tlcc_prov_config *p);

#endif
