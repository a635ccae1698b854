/* Suppressions ([suppress] in the config), the baseline (--baseline / --write-baseline) and progress output.
 * Suppressed findings stay in reports (marked) but never fail the run. */
#ifndef TLCK_SUPPRESS_H
#define TLCK_SUPPRESS_H
#include <stdio.h>
#include "policy.h"
#include "report/report.h"

/* [suppress] entries: `CHECK-ID = SYMBOL-GLOB [FILE-GLOB]` (CHECK-ID may be *; globs as fnmatch(3); a finding
 * without a symbol is matched as the empty string, so use * to cover those). Marks matching findings. */
void tlck_suppress_apply(struct tlck_findings *fs, const struct tlck_policy *p);

/* Baseline: a previous JSON report; findings whose fingerprint it contains are marked suppressed. Returns -1
 * (with a message on stderr) when the file cannot be read. */
int tlck_baseline_apply(struct tlck_results *r, const char *path);
/* Writes the current results as a JSON report to path (what --baseline reads). */
int tlck_baseline_write(const struct tlck_results *r, const struct tlck_options *o, const char *path);

/* Progress on stderr: only when asked (--progress) or, by default, when stderr is a TTY and the run is long
 * (more than one input, or an input over 50 MB). */
int tlck_progress_wanted(const struct tlck_options *o, size_t ninputs, int big_input);
void tlck_progress_tick(size_t done, size_t total, const char *name);
void tlck_progress_done(void);

#endif
