/* Provenance statistics (prov_stats.c), kept in $XDG_CACHE_HOME/trueline/provenance-stats/ (one append-only
 * file per counter: a lost update is impossible, a failed update is silently skipped: statistics never fail
 * a build). Shared by trueline-cc and the hook in ccache. */
#ifndef TLCC_WRAPPER_PROV_STATS_H
#define TLCC_WRAPPER_PROV_STATS_H

enum tlcc_stat { TLCC_STAT_VERIFIED, TLCC_STAT_MISMATCH, TLCC_STAT_NO_NOTE, TLCC_STAT_RECOMPILED, TLCC_STAT_STAMPED,
                 TLCC_STAT_UNBOUND, TLCC_STAT_N };
/* What $XDG_CACHE_HOME and $HOME hold, which place the counters: trueline-cc says it from its environment snapshot
 * (env_snapshot.h), the hook from ccache's environment. */
typedef struct tlcc_stats_home {
    const char *xdg_cache_home, *home;
} tlcc_stats_home;

void tlcc_stats_add(const tlcc_stats_home *where, enum tlcc_stat which, int delta);
/* Prints the `ccache -s`-like lines; returns 0. */
int tlcc_stats_print(const tlcc_stats_home *where);
void tlcc_stats_zero(const tlcc_stats_home *where);

#endif
