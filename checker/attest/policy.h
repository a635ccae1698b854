/* What a release asks of the records (--require LIST), judged over a statement's facts (policy.c): the
 * attest step records the requirements and the verdict in the statement; the verify step judges the signed
 * statement again, so a consumer can ask for more than the producer did. */
#ifndef TLCK_ATTEST_POLICY_H
#define TLCK_ATTEST_POLICY_H
#include "attest/facts.h"
#include "trueline/diag.h"

enum { TLCK_REQ_ONE_TOOLCHAIN = 1, TLCK_REQ_LINE_INFO = 2, TLCK_REQ_NO_DEVICE_DEBUG = 4, TLCK_REQ_KEYED = 8,
       TLCK_REQ_RECORDED = 16 };

/* "one-toolchain,line-info,no-device-debug,keyed,recorded" or "all" -> a mask; err names a wrong word. */
int tlck_att_policy_parse(const char *list, unsigned *mask, tl_error *err);
/* Appends one violation per object and requirement to a->violations ("FILE: what"); returns their number,
 * -1 without memory. */
long tlck_att_policy_judge(struct tlck_attestation *a, unsigned mask);

#endif
