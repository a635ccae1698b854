/* Device-code parts of checks that also have a host part (line-tables, mixed-toolchain); called from their
 * run() so that each check keeps one id and one severity. */
#ifndef TL_DEVICE_CHECKS_H
#define TL_DEVICE_CHECKS_H
#include "checks/checks.h"

/* line-tables for f->devices: kernels/device functions without rows, per-cubin and per-file coverage, PTX
 * without .loc/.file, and device images that could not be decoded. */
void tl_line_tables_device(const struct tl_file *f, enum tl_severity sev, struct tl_findings *out);
/* mixed-toolchain for f->devices: cubins produced by more than one CUDA toolkit release. */
void tl_mixed_toolchain_device(const struct tl_file *f, enum tl_severity sev, struct tl_findings *out);

#endif
