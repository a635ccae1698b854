/* trueline-check's own [audit] section of the configuration, and the settings resolved from it and the command
 * line that are not a check's: the profile (profile.h) and the device-image cache (read/image_cache.h). */
#ifndef TLCK_AUDIT_SETTINGS_H
#define TLCK_AUDIT_SETTINGS_H
#include "options.h"
#include "trueline/config.h"
#include "trueline/diag.h"

/* Every key of [audit] is one this program reads: a misspelt key would otherwise be a setting silently lost.
 * 0, or -1 with err naming the key and where it was set. */
int tlck_audit_settings_check(const tl_config *cfg, tl_error *err);

/* The image cache for this run: --no-image-cache or [audit] image_cache = off: none; else --image-cache DIR,
 * else [audit] image_cache = DIR, else the default directory; [audit] image_cache_max_mb bounds it. Sets
 * o->image_cache (NULL when off, or when the directory cannot be used: the audit then runs uncached).
 * 0, or -1 with err for a value that is not valid. */
int tlck_audit_settings_image_cache(struct tlck_options *o, const tl_config *cfg, tl_error *err);

/* The debug store of split-out line info (read/debug_store.h): --debug-store DIR, else [audit] debug_store (also
 * TRUELINE_AUDIT_DEBUG_STORE); read by the audit, --symbolize and --coredump alike. 0, or -1 for an empty value or,
 * unless the mode makes the store (makes_it: --split), for one that is not a directory. */
int tlck_audit_settings_debug_store(struct tlck_options *o, const tl_config *cfg, int makes_it, tl_error *err);

#endif
