/* What a package member comes compressed with, and the most output a compressed byte of it may honestly give:
 * one row per codec (package_codec.c), found from libarchive's filter (a tar stream: .tar.bz2, conda's tar.zst)
 * or a zip entry's method. A member, or all the members of one package together, decompressing past the row's
 * ratio of the bytes holding them is a decompression bomb and an error. */
#ifndef TLCK_PACKAGE_CODEC_H
#define TLCK_PACKAGE_CODEC_H

struct archive;

struct tlck_member_codec {
    const char *name;   /* for messages: "deflate", "bzip2", ... */
    int filter;         /* libarchive's ARCHIVE_FILTER_* of a stream, -1: none */
    const char *method; /* libarchive's name of a zip entry's method, as its format name shows it, NULL: none */
    unsigned ratio;     /* most output bytes per input byte (lib/limits.h) */
};

/* The codec of the member a's current header is at: the stream's filter, else the zip entry's method, else
 * deflate's bound (stored, gzip, an unnamed method: none gives more). Never NULL. */
const struct tlck_member_codec *tlck_member_codec(struct archive *a);

#endif
