/* The JSON object of one device image, shared by the audit report (report/json.c) and --list --format json,
 * so both describe an image the same way (docs/json-schema.json "device_image"). */
#ifndef TLCK_JSON_DEVICE_H
#define TLCK_JSON_DEVICE_H
#include "model.h"
#include "report/json_write.h"

void tlck_json_device_image(struct tlck_jw *w, const struct tlck_image *img);  /* an array element */

#endif
