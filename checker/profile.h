/* Audit profiles: what an audit expects of the files it is given. The build profile (the default) audits what
 * a build produced, debug information included; the release profile audits what ships (docs/packages.md). */
#ifndef TLCK_PROFILE_H
#define TLCK_PROFILE_H
#include "policy.h"

struct tlck_profile {
    const char *name;
    const char *summary;               /* one line for --help's list and the docs */
    unsigned release : 1;              /* -G device images are findings (as --release) */
    unsigned stripped_is_finding : 1;  /* a file without host DWARF (stripped) is a line-tables finding */
    unsigned provenance_absent : 1;    /* "not built through trueline-cc" is reported without being asked for */
    unsigned device_lines_by_config : 1; /* device line info is expected unless [wrapper] device_lineinfo = false */
};

/* The profile named name (any case), NULL when there is none. */
const struct tlck_profile *tlck_profile_find(const char *name);
/* "build, release": the names, for messages about an unknown one. */
const char *tlck_profile_names(void);
/* The audit's profile: --profile's name when given (cli, already checked), else [audit] profile of the
 * configuration, else the release profile when packages (every input is a wheel or conda package, as
 * tlck_inputs_all_packages says), else the build profile. NULL with err naming where the value was set and the valid names when
 * the configured value names no profile (a usage error, exit 2). */
const struct tlck_profile *tlck_profile_select(const tl_config *cfg, const char *cli, int packages, tl_error *err);
/* The policy's profile: the build profile when the policy names none. */
const struct tlck_profile *tlck_profile_of(const struct tlck_policy *p);
/* Whether the user asked for check id by name: --checks lists it, or [checks] sets its severity. */
int tlck_profile_asked(const struct tlck_policy *p, const char *id);
/* Whether device images should carry line info under p: always in the build profile; in the release profile
 * unless the team's configuration turned it off for its device compiles ([wrapper] device_lineinfo = false). */
int tlck_profile_wants_device_lines(const struct tlck_policy *p);

#endif
