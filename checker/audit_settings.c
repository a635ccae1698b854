#include "audit_settings.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "read/image_cache.h"

int tlck_audit_settings_check(const tl_config *cfg, tl_error *err)
{
    static const char *const audit_keys[] = { "profile", "image_cache", "image_cache_max_mb", "debug_store", NULL };
    static const struct tl_config_section known[] = { { "audit", audit_keys }, { NULL, NULL } };
    return tl_config_check_keys(cfg, known, err);
}

static int bad_value(const tl_config *cfg, const char *key, const char *v, const char *why, tl_error *err)
{
    char where[1200];
    tl_config_value_origin(cfg, "audit", key, v, where, sizeof where);
    return tl_fail(err, "%s: [audit] %s = '%s' %s", where, key, v, why);
}

int tlck_audit_settings_image_cache(struct tlck_options *o, const tl_config *cfg, tl_error *err)
{
    o->image_cache = NULL;
    const char *v = tl_config_get(cfg, "audit", "image_cache");
    const char *mb = tl_config_get(cfg, "audit", "image_cache_max_mb");
    unsigned long long cap_mb = 0;
    if (mb) {
        char *end;
        cap_mb = strtoull(mb, &end, 10);
        if (!*mb || *end || mb[0] == '-' || cap_mb == 0 || cap_mb > (1ull << 30))
            return bad_value(cfg, "image_cache_max_mb", mb, "is not a size in MB (1 or more)", err);
    }
    if (v && !*v)
        return bad_value(cfg, "image_cache", v, "is neither a directory nor off", err);
    if (o->no_image_cache || (!o->image_cache_dir && v && strcmp(v, "off") == 0))
        return 0;
    char *dflt = NULL;
    const char *dir = o->image_cache_dir ? o->image_cache_dir : v ? v : (dflt = tlck_image_cache_default_dir());
    if (dir)
        o->image_cache = tlck_image_cache_open(dir, cap_mb << 20);
    free(dflt);
    return 0;
}

int tlck_audit_settings_debug_store(struct tlck_options *o, const tl_config *cfg, int makes_it, tl_error *err)
{
    const char *v = tl_config_get(cfg, "audit", "debug_store");
    if (v && !*v)
        return bad_value(cfg, "debug_store", v, "is not a directory", err);
    if (!o->debug_store)
        o->debug_store = v; /* lives as long as cfg, which main keeps until the end of the run */
    struct stat st; /* read by every mode but one that makes it (--split) */
    if (o->debug_store && !makes_it && (stat(o->debug_store, &st) != 0 || !S_ISDIR(st.st_mode)))
        return tl_fail(err, "debug store %s: %s", o->debug_store, stat(o->debug_store, &st) != 0 ? strerror(errno)
                                                                                                  : "not a directory");
    return 0;
}
