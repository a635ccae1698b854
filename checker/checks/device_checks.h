/* Device-code parts of checks that also have a host part (line-tables, mixed-toolchain); called from their
 * run() so that each check keeps one id and one severity. */
#ifndef TLCK_DEVICE_CHECKS_H
#define TLCK_DEVICE_CHECKS_H
#include "checks/checks.h"

/* line-tables for f->devices: kernels/device functions without rows, per-cubin and per-file coverage, PTX
 * without .loc/.file, and device images that could not be decoded. */
void tlck_line_tables_device(const struct tlck_file *f, enum tlck_severity sev, struct tlck_findings *out);
/* mixed-toolchain for f->devices: cubins produced by more than one CUDA toolkit release. */
void tlck_mixed_toolchain_device(const struct tlck_file *f, enum tlck_severity sev, struct tlck_findings *out);

#endif
