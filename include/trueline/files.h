#ifndef TRUELINE_FILES_H
#define TRUELINE_FILES_H
/* The file-system steps both front ends take when they write what they keep (the wrapper's memo and statistics,
 * the checker's image cache and extracted images). */
#include <stddef.h>
#include <sys/types.h>

/* mkdir -p: dir and every missing parent, made with mode (before the umask). 0, or -1 with errno. */
int tl_mkdirs(const char *dir, mode_t mode);
/* All n bytes to fd, through short writes and EINTR. 0, or -1 with errno. */
int tl_write_all(int fd, const void *p, size_t n);

#endif
