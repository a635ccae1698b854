/* The toolchain fingerprint: XXH3-128 over the content of every file the compile really runs or reads
 * as configuration (the driver, its sub-tools, nvcc.profile, libdevice, the host compiler ...) and the
 * environment variables that change compilation. Content hashes are memoized by stat (memo.h). */
#ifndef TLCC_WRAPPER_FINGERPRINT_H
#define TLCC_WRAPPER_FINGERPRINT_H
#include "understand/invocation.h"
#include "fingerprint/memo.h"

/* The environment variables hashed for every family are the first TLCC_EV_NFINGERPRINTED of the run's
 * environment snapshot (env_snapshot.h; docs/wrapper.md lists them with the reason). */

/* Fills inv->comps, env_hashed, fingerprint/fp_hex. Returns -1 with err naming the file when a
 * component exists but cannot be read (a missing tool is recorded as absent, not an error). */
int tlcc_fingerprint(tlcc_invocation *inv, const tl_config *cfg, tlcc_memo *memo, tl_error *err);

#endif
