/* Number formatting for the dependency records a warm run writes and compares (stat identities). */
#ifndef TLCC_WRAPPER_BYTES_H
#define TLCC_WRAPPER_BYTES_H
#include <string.h>

/* v in hex without leading zeros, then the byte after; returns the end. Two digits per table lookup:
 * formatting stat identities was the costliest part of a warm run's dependency checks. */
static inline char *tlcc_put_hex(char *o, unsigned long long v, char after)
{
    static const char pairs[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                                "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                                "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                                "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                                "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                                "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                                "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                                "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    int n = (64 - __builtin_clzll(v | 1) + 3) / 4; /* digits, without leading zeros; "0" for 0 */
    int i = n;
    for (; i >= 2; i -= 2, v >>= 8)
        memcpy(o + i - 2, pairs + 2 * (v & 0xff), 2);
    if (i)
        o[0] = pairs[2 * (v & 0xf) + 1];
    o[n] = after;
    return o + n + 1;
}

/* v in decimal, at least width digits (zero-padded), then the byte after; returns the end. */
static inline char *tlcc_put_dec(char *o, unsigned long long v, int width, char after)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n < width)
        tmp[n++] = '0';
    while (n)
        *o++ = tmp[--n];
    *o = after;
    return o + 1;
}

#endif
