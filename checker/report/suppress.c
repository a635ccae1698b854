#include "report/suppress.h"

#include <fnmatch.h>
#include <string.h>
#include <unistd.h>

struct match_ctx {
    struct tlck_finding *x;
};

static void try_entry(const char *key, const char *value, int line, void *ctx)
{
    struct tlck_finding *x = ((struct match_ctx *)ctx)->x;
    (void)line;
    if (x->suppressed || (strcmp(key, "*") != 0 && strcmp(key, x->check) != 0))
        return;
    char sym[512] = "*", file[1024] = "*";
    int n = sscanf(value, "%511s %1023s", sym, file);
    if (n < 1)
        return;
    if (fnmatch(sym, x->symbol ? x->symbol : "", 0) == 0 && fnmatch(file, x->file ? x->file : "", 0) == 0)
        x->suppressed = 1;
}

void tlck_suppress_apply(struct tlck_findings *fs, const struct tlck_policy *p)
{
    if (!p->cfg)
        return;
    for (size_t i = 0; i < fs->n; i++) {
        struct match_ctx c = { &fs->v[i] };
        tl_config_each(p->cfg, "suppress", try_entry, &c);
    }
}

int tlck_progress_wanted(const struct tlck_options *o, size_t ninputs, int big_input)
{
    if (o->progress >= 0)
        return o->progress;
    return isatty(STDERR_FILENO) && (ninputs > 1 || big_input);
}

void tlck_progress_tick(size_t done, size_t total, const char *name)
{
    fprintf(stderr, "\r\033[K[%zu/%zu] %.100s", done, total, name ? name : "");
    fflush(stderr);
}

void tlck_progress_done(void)
{
    fputs("\r\033[K", stderr);
    fflush(stderr);
}
