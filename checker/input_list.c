#include "input_list.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

struct tlck_input *tlck_inputs_add(struct tlck_inputs *out, const char *display, const char *path)
{
    if (tlck_grow((void **)&out->v, &out->cap, out->n + 1, sizeof *out->v) != 0)
        return NULL;
    struct tlck_input *in = &out->v[out->n++];
    memset(in, 0, sizeof *in);
    in->display = strdup(display);
    in->path = strdup(path);
    return in;
}

void tlck_inputs_add_error(struct tlck_inputs *out, const char *path, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct tlck_input *in = tlck_inputs_add(out, path, path);
    if (in)
        in->error = strdup(msg);
}
