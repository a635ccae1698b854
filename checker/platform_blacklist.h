/* auditwheel's symbol blacklist (conf/platform_blacklist.tsv): per platform tag, symbols of a library a Python
 * extension module must not import. One place decides whether a file breaks it, for the package verdict and for
 * symbol-versions. */
#ifndef TLCK_PLATFORM_BLACKLIST_H
#define TLCK_PLATFORM_BLACKLIST_H
#include <limits.h>
#include <stddef.h>

#include "model.h"
#include "trueline/diag.h"

struct tlck_blacklist_row {
    char tag[64];     /* "manylinux_2_17" */
    char *lib;        /* "libz.so.1" */
    char *symbols;    /* ",gzflags,_tr_init,": comma-delimited; "*" forbids the library itself */
};

struct tlck_blacklist {
    struct tlck_blacklist_row *v;
    size_t n;
    char path[PATH_MAX]; /* the file read; "" when none was found */
};

/* Reads path, or when path is NULL conf/platform_blacklist.tsv where the other platform tables are found (none
 * found: an empty table, 0). A file found that cannot be read, or a line that is not "tag<TAB>library<TAB>symbols"
 * with no field empty, is -1 with err naming the file (the line) and what is wrong; nothing stays allocated then. */
int tlck_blacklist_load(struct tlck_blacklist *b, const char *path, tl_error *err);
void tlck_blacklist_free(struct tlck_blacklist *b);

/* What makes a file break a tag's blacklist. */
struct tlck_blacklist_hit {
    const char *lib;      /* the needed library whose blacklist it breaks (the table's string) */
    const char *symbol;   /* the first such symbol in .dynsym order (the file's string); "*" for the library */
    size_t count;         /* how many of the file's symbols that library's row forbids */
    char names[256];      /* "gzflags, _tr_init": those symbols, as many as fit, then " and N more" */
    size_t shown;         /* how many names holds */
};

/* Whether f breaks tag's blacklist as auditwheel tests it: f has a blacklisted library as DT_NEEDED and a non-weak
 * undefined .dynsym symbol of a name that library's row lists (any version). The first such library, in
 * DT_NEEDED order, goes into hit. 0 when not (b NULL or empty, f unreadable or relocatable, no row for tag).
 * Which files auditwheel tests is the caller's: see tlck_python_extension. */
int tlck_blacklist_hit(const struct tlck_blacklist *b, const char *tag, const struct tlck_file *f,
                       struct tlck_blacklist_hit *hit);

/* Every symbol of f that tag's row for lib forbids, in .dynsym order (pointers to f's strings; free the array
 * alone); NULL with *n 0 when none or no memory. The complete list that hit->names abbreviates. */
const char **tlck_blacklist_names(const struct tlck_blacklist *b, const char *tag, const struct tlck_file *f,
                                  const char *lib, size_t *n);

/* Whether f is a Python extension module as auditwheel tells it: its file name up to the first '.' is MOD and it
 * defines the function PyInit_MOD, initMOD or _cffi_pypyinit_MOD in .dynsym. auditwheel tests the blacklist of
 * every extension module of a wheel, and of every other ELF member no member needs (DT_NEEDED) by file name. */
int tlck_python_extension(const struct tlck_file *f);

#endif
