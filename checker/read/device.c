/* Device-code reader: scaffold; the CUDA device-code issue fills it. */
#include "read/readers.h"

int tl_read_device_images(struct tl_file *f, const tl_elf *e, const unsigned char *data, size_t size,
                          const struct tl_options *o)
{
    (void)f; (void)e; (void)data; (void)size; (void)o;
    return 0;
}
