#ifndef TRUELINE_LIB_MAP_GUARD_H
#define TRUELINE_LIB_MAP_GUARD_H
/* Mapped inputs that shrink while they are read. A page of a file mapping past the file's new end raises
 * SIGBUS on access, which killed trueline-check with every other input's result. While a mapping is
 * registered here, a SIGBUS inside it replaces the missing pages with zero pages and marks the mapping
 * changed; the access then succeeds, the reader goes on over zeros (every reader already bounds-checks what
 * it reads), and the loader reports the input as changed while being read instead of any finding.
 * Internal to lib/: elf_file.c registers what tl_map_file maps. */
#include <stddef.h>

/* 0 when registered; -1 when the table is full (the mapping is then unguarded, as before). */
int tl_map_guard_add(void *map, size_t len);
/* Forgets the mapping; returns 1 when it had been changed (a SIGBUS was absorbed in it). */
int tl_map_guard_remove(void *map);
/* 1 when a SIGBUS was absorbed in this registered mapping. */
int tl_map_guard_changed(const void *map);

#endif
