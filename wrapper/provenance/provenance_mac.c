/* The MAC of provenance records (docs/provenance.md, "Authenticating records"): HMAC-SHA512-256
 * (libsodium's crypto_auth_hmacsha512256) keyed with the bytes of the configured key file, over what
 * tl_note_mac_span names (the note type, then every field before "mac", the content digest included).
 * Built without libsodium (TL_HAVE_SODIUM undefined), a configured key is an error: records are never
 * silently left unauthenticated. */
#include "provenance/provenance_mac.h"
#include "trueline/note_mac.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#define KEY_MIN 16      /* bytes: a shorter key is a mistake (an empty or truncated file) */
#define KEY_MAX 4096

int tlcc_mac_key_load(const char *path, tlcc_mac_key *k, tl_error *err)
{
    memset(k, 0, sizeof *k);
#ifndef TL_HAVE_SODIUM
    return tl_fail(err, "[provenance] key_file = %s: this trueline-cc was built without libsodium, so it cannot "
                        "authenticate records (rebuild with libsodium-dev installed, or unset the key)", path);
#else
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return tl_fail(err, "[provenance] key_file = %s: cannot read the key: %s", path, strerror(e));
    }
    unsigned char *b = S_ISREG(st.st_mode) && st.st_size >= KEY_MIN && st.st_size <= KEY_MAX ? malloc((size_t)st.st_size) : NULL;
    ssize_t got = b ? read(fd, b, (size_t)st.st_size) : -1;
    close(fd);
    if (!b || got != st.st_size) {
        free(b);
        return tl_fail(err, "[provenance] key_file = %s: expected a regular file of %d to %d bytes (it has %lld)", path,
                       KEY_MIN, KEY_MAX, (long long)st.st_size);
    }
    k->bytes = b;
    k->len = (size_t)st.st_size;
    return 0;
#endif
}

void tlcc_mac_key_free(tlcc_mac_key *k)
{
    if (k->bytes) {
        memset(k->bytes, 0, k->len);
        free(k->bytes);
    }
    memset(k, 0, sizeof *k);
}

int tlcc_mac_hex(const tlcc_mac_key *k, const void *a, size_t alen, const void *b, size_t blen,
               char hex[TL_NOTE_MAC_HEX_LEN + 1])
{
    return tl_note_mac_hex(k->bytes, k->len, a, alen, b, blen, hex);
}

int tlcc_mac_note_ok(void *key, const tl_note *n)
{
    const tlcc_mac_key *k = key;
    return tl_note_mac_matches(k->bytes, k->len, n->mac_input, n->mac_input_len, n->mac);
}
