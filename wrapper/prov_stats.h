/* Provenance statistics (prov_stats.c), kept in $XDG_CACHE_HOME/trueline/provenance-stats/ (one append-only
 * file per counter: a lost update is impossible, a failed update is silently skipped: statistics never fail
 * a build). Shared by trueline-cc and the hook in ccache. */
#ifndef TLCC_WRAPPER_PROV_STATS_H
#define TLCC_WRAPPER_PROV_STATS_H

enum tlcc_stat { TLCC_STAT_VERIFIED, TLCC_STAT_MISMATCH, TLCC_STAT_NO_NOTE, TLCC_STAT_RECOMPILED, TLCC_STAT_STAMPED,
                 TLCC_STAT_UNBOUND, TLCC_STAT_N };
void tlcc_stats_add(enum tlcc_stat which, int delta);
/* Prints the `ccache -s`-like lines; returns 0. */
int tlcc_stats_print(void);
void tlcc_stats_zero(void);

#endif
