#include "trueline/limits.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

static size_t decompress_limit;

void tl_set_decompress_limit(size_t bytes)
{
    decompress_limit = bytes;
}

size_t tl_decompress_limit(void)
{
    return decompress_limit ? decompress_limit : TL_DECOMPRESS_DEFAULT;
}

size_t tl_decompress_bound(size_t n, unsigned ratio)
{
    const size_t slack = (size_t)1 << 17;
    if (ratio == 0 || n > (SIZE_MAX - slack) / ratio)
        return SIZE_MAX;
    return n * ratio + slack;
}

/* Per reading thread, reset by the loader for each input: whether a bound was hit (and why), and how much
 * the input's decompressed sections hold together. Sections stay in memory while their input is read, so
 * the bound is on their sum: three sections sharing one 1 GiB zstd payload asked for 3 GiB of a 37 KB file. */
static _Thread_local int limit_hit;
static _Thread_local size_t held;
static _Thread_local char hit_reason[320];

void tl_decompress_limit_reset(void)
{
    limit_hit = 0;
    held = 0;
    hit_reason[0] = 0;
}

int tl_decompress_limit_hit(void)
{
    return limit_hit;
}

const char *tl_decompress_limit_reason(void)
{
    return hit_reason;
}

static int hit(tl_error *err, const char *fmt, const char *what, unsigned long long a, size_t b)
{
    limit_hit = 1;
    snprintf(hit_reason, sizeof hit_reason, fmt, what, a, b);
    return tl_fail(err, "%s", hit_reason);
}

int tl_decompress_check(const char *what, size_t n, unsigned long long size, unsigned ratio, tl_error *err)
{
    if (size > tl_decompress_bound(n, ratio))
        return tl_fail(err, "%s declares %llu uncompressed bytes for %zu compressed bytes: impossible, input is corrupt",
                       what, size, n);
    size_t cap = tl_decompress_limit();
    if (size > cap)
        return hit(err, "%s would decompress to %llu bytes, over the limit of %zu MiB (--max-input-mb)", what, size,
                   cap >> 20);
    if (size > cap - held)
        return hit(err, "%s would bring this input's decompressed sections to %llu bytes, over the limit of %zu MiB "
                   "for one input (--max-input-mb)", what, (unsigned long long)held + size, cap >> 20);
    held += (size_t)size;
    return 0;
}

void tl_decompress_oom(const char *what, unsigned long long size)
{
    limit_hit = 1;
    snprintf(hit_reason, sizeof hit_reason, "out of memory decompressing %s (%llu bytes)", what, size);
}

/* Thread-local: the checker reads inputs on several threads, each with its own deadline. */
static _Thread_local struct timespec deadline;
static _Thread_local unsigned deadline_s;

void tl_deadline_start(unsigned seconds)
{
    deadline_s = seconds;
    if (!seconds)
        return;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += seconds;
}

void tl_deadline_stop(void)
{
    deadline_s = 0;
}

int tl_deadline_expired(void)
{
    if (!deadline_s)
        return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

tl_deadline tl_deadline_get(void)
{
    return (tl_deadline){ deadline, deadline_s };
}

void tl_deadline_set(tl_deadline d)
{
    deadline = d.at;
    deadline_s = d.seconds;
}

int tl_deadline_check(tl_error *err)
{
    return tl_deadline_expired() ? tl_fail(err, "time limit of %u s exceeded (--timeout)", deadline_s) : 0;
}
