#include "package_codec.h"

#include <archive.h>
#include <string.h>

#include "trueline/limits.h"

/* zip methods and tar filters alike: a member of a wheel may be bzip2 or xz (method 12, 95), a conda package is
 * a bzip2 or zstd stream. gzip's and zip's deflate share the first row, which is also the fallback. */
static const struct tlck_member_codec codecs[] = {
    { "deflate", ARCHIVE_FILTER_GZIP, "(deflation", TL_ZLIB_MAX_RATIO },
    { "stored", -1, "(uncompressed)", 1 }, /* a zip entry kept as is: its bytes are the member */
    { "zstd", ARCHIVE_FILTER_ZSTD, "(zstd)", TL_ZSTD_MAX_RATIO },
    { "lz4", ARCHIVE_FILTER_LZ4, NULL, TL_LZ4_MAX_RATIO },
    { "bzip2", ARCHIVE_FILTER_BZIP2, "(bzip", TL_DENSE_MAX_RATIO }, /* libarchive 3.6 says "bzip" */
    { "xz", ARCHIVE_FILTER_XZ, "(xz)", TL_DENSE_MAX_RATIO },
    { "lzma", ARCHIVE_FILTER_LZMA, "(lzma)", TL_DENSE_MAX_RATIO },
    { "lzip", ARCHIVE_FILTER_LZIP, NULL, TL_DENSE_MAX_RATIO },
};

const struct tlck_member_codec *tlck_member_codec(struct archive *a)
{
    int f = a ? archive_filter_code(a, 0) : ARCHIVE_FILTER_NONE;
    const char *fmt = a ? archive_format_name(a) : NULL;
    for (size_t i = 0; i < sizeof codecs / sizeof *codecs; i++)
        if (f != ARCHIVE_FILTER_NONE ? f == codecs[i].filter
                                     : fmt && codecs[i].method && strstr(fmt, codecs[i].method))
            return &codecs[i];
    /* a filter or method with no row (compress, lzop; a zip's deflate64, ppmd): deflate's bound, the one
     * every packaging tool's default codec lives under */
    return &codecs[0];
}
