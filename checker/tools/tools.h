/* The non-check modes of trueline-check. Each returns the process exit status (0, 1 or 2). */
#ifndef TLCK_TOOLS_H
#define TLCK_TOOLS_H
#include "options.h"

int tlck_tool_list(const struct tlck_options *o);        /* --list: device-image inventory */
int tlck_tool_extract(const struct tlck_options *o);     /* --extract DIR */
int tlck_tool_symbolize(const struct tlck_options *o);   /* --symbolize FILE LOCATION [--sm N] */
int tlck_symbolize_operands(struct tlck_options *o);     /* its operands: FILE, then the locations (else 2) */
int tlck_tool_coredump(const struct tlck_options *o);    /* --coredump CORE [--binary F ...] */
int tlck_tool_provenance(const struct tlck_options *o);  /* --provenance FILE */
int tlck_tool_split(const struct tlck_options *o);       /* --split --debug-store STORE --output-dir DIR FILE */
int tlck_tool_keygen(const struct tlck_options *o);      /* --keygen NAME */
int tlck_tool_attest(const struct tlck_options *o);      /* --attest --signing-key KEY --output F ARTIFACT... */
int tlck_tool_verify_attestation(const struct tlck_options *o); /* --verify-attestation F --public-key K.pub ... */

#endif
