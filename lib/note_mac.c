/* Record MACs (trueline/note_mac.h), shared by trueline-cc, which writes and checks them, and trueline-check
 * --attest, which states whether each record's MAC verifies. */
#include "trueline/note_mac.h"

#include <string.h>

#ifdef TL_HAVE_SODIUM
#include <sodium.h>
#endif

int tl_note_mac_hex(const unsigned char *key, size_t keylen, const void *a, size_t alen, const void *b, size_t blen,
                    char hex[TL_NOTE_MAC_HEX_LEN + 1])
{
#ifndef TL_HAVE_SODIUM
    (void)key, (void)keylen, (void)a, (void)alen, (void)b, (void)blen, (void)hex;
    return -1;
#else
    if (!key || sodium_init() < 0)
        return -1;
    crypto_auth_hmacsha512256_state st;
    unsigned char mac[crypto_auth_hmacsha512256_BYTES];
    crypto_auth_hmacsha512256_init(&st, key, keylen);
    crypto_auth_hmacsha512256_update(&st, a, alen);
    if (blen)
        crypto_auth_hmacsha512256_update(&st, b, blen);
    crypto_auth_hmacsha512256_final(&st, mac);
    sodium_bin2hex(hex, TL_NOTE_MAC_HEX_LEN + 1, mac, sizeof mac);
    return 0;
#endif
}

int tl_note_mac_matches(const unsigned char *key, size_t keylen, const void *input, size_t len, const char *mac)
{
    char want[TL_NOTE_MAC_HEX_LEN + 1];
    if (!mac || !input || strlen(mac) != TL_NOTE_MAC_HEX_LEN ||
        tl_note_mac_hex(key, keylen, input, len, NULL, 0, want) != 0)
        return 0;
#ifdef TL_HAVE_SODIUM
    return sodium_memcmp(want, mac, TL_NOTE_MAC_HEX_LEN) == 0;
#else
    return 0;
#endif
}
