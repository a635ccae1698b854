#include "trueline/limits.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t tl_decompress_bound(size_t n, unsigned ratio)
{
    const size_t slack = (size_t)1 << 17;
    if (ratio == 0 || n > (SIZE_MAX - slack) / ratio)
        return SIZE_MAX;
    return n * ratio + slack;
}

void tl_budget_init(tl_budget *b, size_t cap, unsigned seconds)
{
    memset(b, 0, sizeof *b);
    b->cap = cap ? cap : TL_BUDGET_DEFAULT;
    atomic_init(&b->held, 0);
    atomic_init(&b->hit, 0);
    b->seconds = seconds;
    if (seconds) {
        clock_gettime(CLOCK_MONOTONIC, &b->deadline);
        b->deadline.tv_sec += seconds;
    }
}

/* " (ORIGIN)" when the front end said what set a bound. */
static const char *origin(const char *o, char *buf, size_t n)
{
    if (!o)
        return "";
    snprintf(buf, n, " (%s)", o);
    return buf;
}

/* The first refusal is the one reported: later ones are its consequences. */
static void record(tl_budget *b, const char *msg)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&b->hit, &expected, 1))
        snprintf(b->reason, sizeof b->reason, "%s", msg);
}

int tl_budget_take(tl_budget *b, const char *what, size_t n, unsigned long long size, unsigned ratio, tl_error *err)
{
    if (size > tl_decompress_bound(n, ratio))
        return tl_fail(err, "%s declares %llu uncompressed bytes for %zu compressed bytes: impossible, input is corrupt",
                       what, size, n);
    size_t cap = b ? b->cap : TL_BUDGET_DEFAULT;
    char msg[320], o[80];
    if (size > cap) {
        snprintf(msg, sizeof msg, "%s would decompress to %llu bytes, over the limit of %zu MiB%s", what, size,
                 cap >> 20, origin(b ? b->cap_origin : NULL, o, sizeof o));
        if (b)
            record(b, msg);
        return tl_fail(err, "%s", msg);
    }
    if (!b)
        return 0;
    /* Sections stay in memory while their input is read, so the bound is on their sum: three sections sharing
     * one 1 GiB zstd payload asked for 3 GiB of a 37 KB file. */
    size_t held = atomic_load(&b->held);
    do {
        if (size > cap - held) {
            snprintf(msg, sizeof msg, "%s would bring this input's decompressed sections to %llu bytes, over the "
                     "limit of %zu MiB for one input%s", what, (unsigned long long)held + size, cap >> 20,
                     origin(b->cap_origin, o, sizeof o));
            record(b, msg);
            return tl_fail(err, "%s", msg);
        }
    } while (!atomic_compare_exchange_weak(&b->held, &held, held + (size_t)size));
    return 0;
}

void tl_budget_oom(tl_budget *b, const char *what, unsigned long long size)
{
    char msg[320];
    snprintf(msg, sizeof msg, "out of memory decompressing %s (%llu bytes)", what, size);
    if (b)
        record(b, msg);
}

int tl_budget_hit(const tl_budget *b)
{
    return b && atomic_load(&b->hit);
}

const char *tl_budget_reason(const tl_budget *b)
{
    return b && atomic_load(&b->hit) ? b->reason : "";
}

int tl_budget_expired(const tl_budget *b)
{
    if (!b || !b->seconds)
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > b->deadline.tv_sec || (now.tv_sec == b->deadline.tv_sec && now.tv_nsec >= b->deadline.tv_nsec);
}

int tl_budget_check(const tl_budget *b, tl_error *err)
{
    char o[80];
    return tl_budget_expired(b) ? tl_fail(err, "time limit of %u s exceeded%s", b->seconds,
                                          origin(b->deadline_origin, o, sizeof o))
                                : 0;
}
