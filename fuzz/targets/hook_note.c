/* wrapper/hook/note_section.c: the hook preloaded into ccache finds `.note.trueline` without libelf. Its
 * one safety property, checked against the libelf reader on every input: whenever the hook is sure of one
 * compile record, the libelf verifier (wrapper/provenance/verify.c) accepts the object for that record's fingerprint
 * and argv hashes (ah, and kh and kp when the record has them), i.e. the hook never passes an object the wrapper
 * would reject. */
#include "fuzz_util.h"
#include "hook/note_section.h"
#include "provenance/verify.h"

#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/tl-fuzz-hook-%ld.o", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    tlcc_record_check c = { 0 };
    tlcc_verify_result r = { 0 };
    if (tlcc_hook_read_record(path, &c, &r) == 0 && c.ncompile == 1 && c.compile->fingerprint &&
        c.compile->argv_hash) {
        char *fp = strdup(c.compile->fingerprint), *ah = strdup(c.compile->argv_hash);
        char *kh = c.compile->key_hash ? strdup(c.compile->key_hash) : NULL;
        char *kp = c.compile->key_hash_pp ? strdup(c.compile->key_hash_pp) : NULL;
        tlcc_verify_result v;
        if (tlcc_hook_object_matches(path, fp, ah, kh, kp)) {
            tlcc_verify_expect e = { .fingerprint = fp, .argv_hash = ah, .key_hash = kh, .key_hash_pp = kp };
            tlcc_verify_object(path, &e, &v);
            if (v.status != TLCC_VERIFY_OK) {
                fprintf(stderr, "hook accepted what libelf rejects: %s\n", v.what);
                abort();
            }
        }
        free(fp);
        free(ah);
        free(kh);
        free(kp);
    }
    tlcc_record_check_end(&c, 1, NULL, &r);
    return 0;
}
