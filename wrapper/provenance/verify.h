/* Cache-hit verification of one object with libelf (verify.c); record_check.c decides. */
#ifndef TLCC_WRAPPER_VERIFY_H
#define TLCC_WRAPPER_VERIFY_H
#include "provenance/record_check.h"

void tlcc_verify_object(const char *path, const tlcc_verify_expect *e, tlcc_verify_result *r);
/* Whether path is a host relocatable object that should carry a record (ELF ET_REL, not a cubin). */
int tlcc_prov_is_host_object(const char *path);

#endif
