/* A large package member decompressed into an unlinked temporary file and mapped read-only, instead of into the
 * heap: its pages are clean file pages the kernel may drop under pressure and reread, so a 430 MB shared library
 * in a wheel does not count whole in the checker's resident memory. */
#ifndef TLCK_MEMBER_SPILL_H
#define TLCK_MEMBER_SPILL_H
#include <stddef.h>
#include "inputs.h"
#include "trueline/diag.h"

/* Members declaring more bytes than this go through a temporary file. TRUELINE_SPILL_MB lowers (or raises) it:
 * the tests read a small wheel through that path. */
size_t tlck_spill_threshold(void);

/* An unlinked temporary file in $TMPDIR (else /tmp), open for writing; -1 with err naming why. */
int tlck_spill_open(tl_error *err);

/* Writes n bytes to fd; -1 with err naming why (a full disk). */
int tlck_spill_write(int fd, const void *p, size_t n, tl_error *err);

/* Maps the len bytes written to fd read-only into b (b->map: tlck_input_unmap releases it) and closes fd. */
int tlck_spill_map(int fd, size_t len, struct tlck_input_bytes *b, tl_error *err);

#endif
