#include "input_formats.h"

#include "inputs_archive.h"
#include "inputs_package.h"
#include "load_elf.h"
#include "read/readers.h"
#include "trueline/file_kind.h"

static int elf_magic(const unsigned char *m, size_t n)
{
    return tl_sniff(m, n, NULL) == TL_FILE_ELF;
}

static int fatbin_magic(const unsigned char *m, size_t n)
{
    return tl_sniff(m, n, NULL) == TL_FILE_FATBIN;
}

static int ar_magic(const unsigned char *m, size_t n)
{
    return tl_sniff(m, n, NULL) == TL_FILE_AR;
}

static int thin_magic(const unsigned char *m, size_t n)
{
    return tl_sniff(m, n, NULL) == TL_FILE_THIN_AR;
}

/* A standalone .fatbin: the device reader finds its containers. */
static int load_fatbin(struct tlck_file *f, const unsigned char *data, size_t size, struct tlck_read_ctx *ctx)
{
    return tlck_read_device_images(f, NULL, data, size, ctx);
}

const struct tlck_input_format tlck_input_formats[] = {
    /* host ELF files (objects, libraries, executables) and cubins; 16 bytes: e_ident */
    { "ELF", elf_magic, NULL, tlck_load_elf, 16 },
    /* standalone fatbins (nvcc -fatbin); 16 bytes: a container header */
    { "fatbin", fatbin_magic, NULL, load_fatbin, 16 },
    /* static libraries: members are windows of the file (libelf) */
    { "ar archive", ar_magic, tlck_archive_expand, NULL, 0 },
    /* GNU thin archives: members in files of their own */
    { "thin archive", thin_magic, tlck_thin_archive_expand, NULL, 0 },
    /* wheels, zips, conda packages: members decompressed (libarchive) */
    { "package", tlck_package_magic, tlck_package_expand, NULL, 0 },
};
const size_t tlck_ninput_formats = sizeof tlck_input_formats / sizeof *tlck_input_formats;

const struct tlck_input_format *tlck_input_format_of(const unsigned char *m, size_t n)
{
    for (size_t i = 0; i < tlck_ninput_formats; i++)
        if (tlck_input_formats[i].magic(m, n))
            return &tlck_input_formats[i];
    return NULL;
}
