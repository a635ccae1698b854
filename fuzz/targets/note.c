/* lib/note.c: decoding .note.trueline records (the provenance notes trueline-cc stamps), both byte orders;
 * a decoded record is re-encoded, which must succeed for anything the decoder accepted; and the keyed verifier
 * (wrapper/provenance/provenance_mac.c) runs on every decoded record with a fixed key. */
#include "fuzz_util.h"
#include "../../wrapper/provenance/provenance_mac.h" /* relative: tests/unit/hardening_regress.c includes this file too */
#include "trueline/note.h"

static void note_got(tl_note *n, void *ctx)
{
    unsigned char *out = NULL;
    size_t len = 0;
    tl_error err;
    if (tl_note_encode(n, TL_NOTE_ARGV_MAX_DEFAULT, &out, &len, &err) == 0)
        fuzz_touch(out, len);
    free(out);
    if (n->argc > 0 && n->argv)
        (void)tl_note_argv_hash(n->argv, n->argc);
    /* a record the fuzzer made up never carries the right MAC for this key: the verifier must say no, and
     * must not read past what the decoder handed it whatever the mac fields hold */
    static unsigned char key_bytes[32] = "trueline-fuzz-key-0123456789abcd";
    tlcc_mac_key key = { key_bytes, sizeof key_bytes };
    if (tlcc_mac_note_ok(&key, n))
        __builtin_trap();
    tl_note_free(n); /* fields; the record itself is the callee's too (as in checker/read/notes.c) */
    free(n);
    ++*(size_t *)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1); /* own block: reads past the section end are caught */
    memcpy(copy, data, size);
    size_t got = 0;
    tl_error err;
    (void)tl_note_decode_all(copy, size, 0, note_got, &got, &err);
    (void)tl_note_decode_all(copy, size, 1, note_got, &got, &err);
    free(copy);
    return 0;
}
