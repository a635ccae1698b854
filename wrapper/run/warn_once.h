#ifndef TRUELINE_WRAPPER_WARN_ONCE_H
#define TRUELINE_WRAPPER_WARN_ONCE_H
/* A warning that every compile of a build would repeat (an unwritable memo or stage directory) is said once
 * per period, not once per compile: a marker file in the temporary directory, named by the uid and a hash of
 * what the warning is about, records when it was last said. The marker lives outside the directory the
 * warning is about, which is unwritable. */

/* 1 when the warning keyed by `about` should be printed now (and records that it was); 0 when it was said
 * less than period_s seconds ago. When no marker can be written the answer is 1: saying it too often beats
 * never saying it. tmpdir: what $TMPDIR holds (NULL or empty: /tmp). */
int tlcc_warn_once(const char *tmpdir, const char *about, unsigned period_s);

#endif
