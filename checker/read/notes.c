/* Provenance-note reader: every `.note.trueline` section (a linked artifact has one holding a record per
 * object; a relocatable link of unusual inputs may keep several) into f->notes. Decoding is lib/note.c's. */
#include <stdlib.h>
#include <string.h>

#include "read/readers.h"
#include "trueline/note.h"
#include "trueline/note_section.h"

struct sink {
    struct tlck_file *f;
    size_t cap;
};

static char *join_argv(const tl_note *n)
{
    if (n->argv_omitted || n->argc == 0)
        return NULL;
    size_t len = 1;
    for (int i = 0; i < n->argc; i++)
        len += strlen(n->argv[i]) + 1;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < n->argc; i++) {
        size_t l = strlen(n->argv[i]);
        memcpy(p, n->argv[i], l);
        p += l;
        *p++ = i + 1 < n->argc ? ' ' : 0;
    }
    return s;
}

static void take(tl_note *n, void *ctx)
{
    struct sink *s = ctx;
    struct tlck_file *f = s->f;
    if (tlck_grow((void **)&f->notes, &s->cap, f->nnotes + 1, sizeof *f->notes) == 0) {
        struct tlck_provenance *p = &f->notes[f->nnotes++];
        memset(p, 0, sizeof *p);
        /* Move the strings: the record's fields become the model's. */
        p->source = n->source, n->source = NULL;
        p->compiler = n->family, n->family = NULL;
        p->compiler_version = n->compiler_version, n->compiler_version = NULL;
        p->fingerprint = n->fingerprint, n->fingerprint = NULL;
        p->argv_hash = n->argv_hash, n->argv_hash = NULL;
        p->lineinfo_level = n->lineinfo_level, n->lineinfo_level = NULL;
        p->wrapper_version = n->wrapper_version, n->wrapper_version = NULL;
        p->cwd = n->cwd, n->cwd = NULL;
        p->driver = n->driver, n->driver = NULL;
        p->output = n->output, n->output = NULL;
        p->content_hash = n->content_hash, n->content_hash = NULL;
        p->mac = n->mac, n->mac = NULL;
        p->mac_input = n->mac_input, n->mac_input = NULL;
        p->mac_input_len = n->mac_input_len;
        p->argv = join_argv(n);
        p->argc_total = n->argc_total;
        if (p->argv) /* the vector too, moved */
            p->args = n->argv, p->nargs = n->argc, n->argv = NULL, n->argc = 0;
        p->folded_env = n->folded_env, p->nfolded_env = n->nfolded_env;
        n->folded_env = NULL, n->nfolded_env = 0;
        p->lineinfo_forced = n->lineinfo_forced != 0;
        p->device_debug = n->device_debug != 0;
        p->is_link = n->type == TL_NOTE_LINK;
        p->at_link = n->at_link != 0;
    }
    tl_note_free(n);
    free(n);
}

int tlck_read_notes(struct tlck_file *f, const tl_elf *e)
{
    struct sink s = { f, f->nnotes };
    int rc = 0;
    GElf_Shdr sh;
    for (Elf_Scn *scn = tl_note_section_next(e->elf, e->shstrndx, NULL, &sh); scn;
         scn = tl_note_section_next(e->elf, e->shstrndx, scn, &sh)) {
        f->has_note_section = 1;
        tl_bytes b = { 0 };
        tl_error err;
        if (tl_elf_section_bytes(e, scn, &b, &err) != 0 ||
            tl_note_decode_all(b.p, b.n, e->ehdr.e_ident[EI_DATA] == ELFDATA2MSB, take, &s, &err) < 0) {
            tlck_file_warn(f, "%s: %s", TL_NOTE_SECTION, err.msg);
            rc = 0; /* a damaged note is a finding's business, not an unreadable file */
        }
        tl_bytes_free(&b);
    }
    return rc;
}
