/* The checker's model: what readers fill and what checks see.
 *
 * One input (a path, an archive member, a standalone cubin/fatbin) is a tlck_file. Its code lives in images:
 * the host ELF itself is one image; every device image found in it (cubin or PTX inside a fatbin) is another.
 * Device images are summarized while streaming (the decompressed bytes are freed right after), so the model
 * holds facts, never the big buffers. Checks read the model only; they never open files.
 *
 * Extend by adding fields; keep each field's meaning as documented here. */
#ifndef TLCK_MODEL_H
#define TLCK_MODEL_H
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

enum tlck_severity { TLCK_SEV_NONE = 0, TLCK_SEV_INFO, TLCK_SEV_WARNING, TLCK_SEV_ERROR };
const char *tlck_severity_name(enum tlck_severity s);
int tlck_severity_parse(const char *s, enum tlck_severity *out); /* "info"/"note", "warning", "error", "none" */

/* A function: host STT_FUNC symbol, or a device kernel / device function. */
struct tlck_function {
    char *name;            /* as in the symbol table (mangled) */
    uint64_t addr, size;   /* host: st_value (section-relative in ET_REL); device: offset within its .text */
    unsigned shndx;        /* section index of the code */
    unsigned char bind;    /* STB_* */
    unsigned char visibility;
    unsigned is_kernel : 1;  /* device entry point (STO_CUDA_ENTRY) */
    unsigned has_lines : 1;  /* at least one line row inside [addr, addr+size) */
    uint64_t covered;        /* bytes of [addr, addr+size) covered by line rows */
    char *cu;                /* name of the compile unit whose rows cover it (NULL when none) */
    unsigned cu_unit;        /* host: 1 + index into image.cus of that unit (also when it has no name); 0: none */
    /* Host ET_REL: addr is section-relative; the reader compares it with relocated DWARF addresses through
     * TLCK_ADDR_KEY(shndx, addr). Linked files: the key is the address itself. */
};
/* Relocated DWARF addresses of relocatable objects carry the target section index in bits 48..63 (the reader
 * applies .rela.debug_* itself and encodes it there), so that functions of different sections never collide. */
#define TLCK_ADDR_SHIFT 48
#define TLCK_ADDR_KEY(shndx, addr) (((uint64_t)(shndx) << TLCK_ADDR_SHIFT) | (addr))
#define TLCK_ADDR_OFF(key) ((key) & (((uint64_t)1 << TLCK_ADDR_SHIFT) - 1))
#define TLCK_ADDR_SHNDX(key) ((unsigned)((key) >> TLCK_ADDR_SHIFT))

/* A DWARF compile unit (host) or line-program unit (device). */
struct tlck_cu {
    char *name;          /* DW_AT_name, or the line program's first file */
    char *comp_dir;
    char *producer;      /* DW_AT_producer; NULL when absent */
    unsigned lang;       /* DW_AT_language */
    unsigned dwarf_version;
    uint64_t rows;       /* line rows attributed to this unit */
    uint64_t line_offset;/* host: DW_AT_stmt_list (offset of its line program); UINT64_MAX when none */
    uint64_t funcs, funcs_covered; /* host: functions attributed to this CU (via its rows or its subprograms),
                                    * and how many of them have line rows; filled by the host reader */
};

/* A DWARF subprogram with code (DW_AT_low_pc or DW_AT_ranges), for dwarf-symbols. */
struct tlck_subprogram {
    char *name, *linkage_name;
    uint64_t low_pc, high_pc; /* high_pc as an address (exclusive) */
    unsigned shndx;           /* ET_REL: section the low_pc relocation points into; 0 otherwise */
    int cu;                   /* index into image.cus */
};

/* A dynamic (or, for ET_REL, static) symbol that a linker or loader can see. */
struct tlck_symbol {
    char *name;
    uint64_t value, size;
    unsigned char type, bind, visibility;
    unsigned defined : 1;
    char *version;       /* "GLIBCXX_3.4.30" for versioned references/definitions, NULL otherwise */
    char *version_file;  /* the library a needed version comes from (vernaux's file): set for references and for
                          * copy-relocated definitions; NULL for the file's own (verdef) versions */
    unsigned shndx;      /* section of a definition (SHN_UNDEF for references) */
};

enum tlck_image_kind { TLCK_IMAGE_HOST = 0, TLCK_IMAGE_CUBIN, TLCK_IMAGE_PTX };

/* Facts about a device image (CUBIN or PTX) found in a fatbin container or as a standalone file. */
struct tlck_device_info {
    const char *section;      /* ".nv_fatbin", "__nv_relfatbin", or NULL for a standalone .cubin/.fatbin */
    unsigned container, entry;/* indexes in that section / file, counting from 0 */
    unsigned sm;              /* 90 for sm_90 / compute_90 */
    char arch_suffix;         /* 'a', 'f' or 0 */
    unsigned is_virtual : 1;  /* PTX */
    unsigned is_debug : 1;    /* -G image (fatbin flag 0x2, or debug sections / ptxas -g) */
    unsigned has_lineinfo : 1;/* cubin: .debug_line with files and rows; PTX: .loc and .file present */
    unsigned is_relocatable : 1; /* ET_REL cubin (-rdc) */
    const char *codec;        /* "none", "zstd", "lz4" */
    uint64_t stored_size;     /* bytes in the container (compressed size when compressed) */
    uint64_t size;            /* uncompressed size */
    char *identifier;         /* fatbin entry identifier (source name) or NULL */
    char *producer;           /* tkinfo tool + version, e.g. "ptxas Cuda compilation tools, release 13.0, V13.0.88" */
    char *toolkit_version;    /* "13.0" from tkinfo/cuinfo, NULL when unknown */
    char *ptxas_options;      /* tkinfo options (first ptxas record), or the PTX entry's JIT options */
    unsigned nkernels;
    uint64_t line_bytes;      /* what line info costs in this image, uncompressed: cubin .debug_line and
                               * .nv_debug_line_sass section sizes; PTX: the bytes of its .loc and .file lines */
    char *error;              /* this entry could not be decoded: why (the rest of the file is still checked) */
    unsigned lines_split : 1; /* cubin shipped without its line info: .debug_line present but empty (split out
                               * into a debug store, read/debug_store.h); line_id is then its identity */
    unsigned char line_id[16];/* read/device_identity.h, TLCK_DEVICE_ID_LEN bytes */
    unsigned store_asked : 1; /* a debug store (or DEBUGINFOD_URLS) was asked for this split image's part */
    char *line_store;         /* the debug-store part the line facts were read from (read/store_lines.c), or NULL */
    uint64_t split_line_bytes;/* with line_store: what the split took out of this image (the part's line_bytes) */
};

struct tlck_image {
    enum tlck_image_kind kind;
    char *label;                         /* host: "" ; device: "fatbin[3].entry[1] sm_90" */
    struct tlck_function *funcs;   size_t nfuncs;
    struct tlck_cu *cus;           size_t ncus;
    struct tlck_subprogram *subprograms; size_t nsubprograms;
    unsigned has_debug_line : 1;         /* a .debug_line section exists (possibly empty) */
    unsigned has_debug_info : 1;
    unsigned dwarf_read_error : 1;
    struct tlck_device_info dev;           /* kind != TLCK_IMAGE_HOST */
};

/* A provenance record (.note.trueline), decoded; see lib/note.h for the format. */
struct tlck_provenance {
    char *source, *compiler, *compiler_version, *fingerprint, *argv_hash, *lineinfo_level, *wrapper_version;
    unsigned lineinfo_forced : 1, device_debug : 1, is_link : 1, at_link : 1; /* at_link: "cl" */
    char *driver;         /* basename of the compiler driver (g++, nvcc): records are compared per driver */
    char *cwd;            /* working directory of the compile (a relative source is relative to it) */
    char *output;         /* link records: the output as named */
    char *argv;           /* recorded effective argv joined with spaces (display only), NULL when left out */
    char **args; int nargs; /* the same argv as recorded, element by element (--attest replays it) */
    char **folded_env; int nfolded_env; /* "fe": "NAME=VALUE" of each variable folded into the argv */
    int argc_total;       /* elements of the effective argv (more than recorded when cut) */
    char *content_hash;   /* "ch": digest of the object's bytes outside .note.trueline (compile records) */
    char *mac;            /* "mac": the record's HMAC, NULL when unkeyed */
    unsigned char *mac_input; size_t mac_input_len; /* the bytes the MAC covers (--attest --record-key checks it) */
};

struct tlck_file {
    char *display;        /* what messages name: "path", "lib.a(member.o)" */
    char *path;           /* the file on disk (the archive for members) */
    char *error;          /* could not be read at all: reported, exit 2; nothing else is filled */
    char *warning;        /* readable, but something was off (e.g. debug link CRC mismatch) */
    unsigned elf_type, machine;          /* host ELF e_type / e_machine; 0 for standalone device files */
    unsigned is_libstdcxx : 1;           /* this file is libstdc++ itself */
    char *debug_file;                    /* separate debug file used, if any */
    struct tlck_image host;                /* kind == TLCK_IMAGE_HOST (empty for standalone device files) */
    struct tlck_image *devices;  size_t ndevices;
    struct tlck_symbol *dynsyms; size_t ndynsyms;   /* .dynsym (or .symtab's globals for ET_REL) */
    char **comments;           size_t ncomments;  /* .comment strings, deduplicated */
    struct tlck_provenance *notes; size_t nnotes;
    unsigned has_note_section : 1;
    char *soname;                        /* DT_SONAME, NULL when none */
    char **needed;             size_t nneeded;    /* DT_NEEDED entries, in .dynamic order */
    uint64_t debug_bytes;                /* sizes (sh_size, as stored) of the file's own .debug_* and .zdebug_*
                                          * sections; a separate debug file's are not counted */
    uint64_t debug_line_bytes;           /* of them, .debug_line's (or .zdebug_line's) */
    uint64_t split_debug_bytes;          /* the same two of the separate debug file found for it (a debug store, */
    uint64_t split_debug_line_bytes;     /* --debug-dir, DEBUGINFOD_URLS): what a split took out of the file */
    uint64_t line_rows;                  /* host line rows of linked code (all units), end-of-sequence rows included */
    uint64_t line_rows_discarded;        /* rows of code the linker discarded (runs at address 0, -1, -2): they
                                          * describe no byte of the file, so line_rows leaves them out */
    char *line_error;                    /* .debug_line could not be decoded completely: why */
    char *split_build_id;                /* host DWARF split out: no DWARF of its own, a .gnu_debuglink and this
                                          * GNU build-id (hex), and no debug file found anywhere (none of another
                                          * build either); NULL otherwise */
    unsigned split_store_asked : 1;      /* with split_build_id: a debug store or DEBUGINFOD_URLS was asked */
    unsigned no_section_headers : 1;     /* a linked file whose section header table was removed or zeroed: its
                                          * dynamic symbols and needed libraries come from the dynamic segment;
                                          * line info, DWARF and .note.trueline cannot be read */
    char *sections_hide;                 /* the section headers are there but hide a table the dynamic segment names
                                          * (a section's type changed): what, as tl_elf_sections_hide says it; the
                                          * dynamic symbols then come from the dynamic segment too */
};

/* A finding, as checks emit it; file/symbol/message are owned copies. */
struct tlck_finding {
    const char *check;        /* stable id: "line-tables" ... */
    enum tlck_severity severity;
    char *file;               /* tlck_file.display */
    char *symbol;             /* demangled where useful; NULL when the finding is about the whole file */
    char *mangled;            /* the symbol as the symbol table spells it, when that differs from symbol: two
                               * functions may demangle alike (an ABI tag, a clone, a local and a global) */
    char *message;            /* names what is wrong */
    char *hint;               /* what to do; NULL allowed */
    unsigned suppressed : 1;  /* matched a suppression or the baseline: reported, never fails */
    unsigned detail : 1;      /* one item of what a summary finding of the same check counts (each symbol that
                               * stl-leak's summary counts): in JSON and SARIF; the text report shows it with
                               * --verbose only */
};

struct tlck_findings {
    struct tlck_finding *v;
    size_t n, cap;
};

/* Appends a finding; severity TLCK_SEV_NONE (check switched off) drops it. */
void tlck_emit(struct tlck_findings *out, const char *check, enum tlck_severity sev, const char *file,
             const char *symbol, const char *hint, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* The same with a va_list; returns the finding appended, or NULL when dropped or out of memory. */
struct tlck_finding *tlck_vemit(struct tlck_findings *out, const char *check, enum tlck_severity sev, const char *file,
                                const char *symbol, const char *hint, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));
void tlck_findings_free(struct tlck_findings *f);

void tlck_image_free(struct tlck_image *img);
void tlck_file_free(struct tlck_file *f);
/* Dynamic arrays: grows *v (of elem bytes) to hold at least need elements; returns 0 or -1 on ENOMEM. */
int tlck_grow(void **v, size_t *cap, size_t need, size_t elem);
char *tlck_strdup(const char *s); /* NULL-safe */
char *tlck_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Adds a warning to f->warning ("first; second"): a file has one warning text, and a later reader's warning
 * must not hide an earlier one (a debug file of another build, a damaged provenance section). */
void tlck_file_warn(struct tlck_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
