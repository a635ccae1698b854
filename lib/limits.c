#include "trueline/limits.h"

#include <stdint.h>
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

static _Thread_local int limit_hit;

void tl_decompress_limit_reset(void)
{
    limit_hit = 0;
}

int tl_decompress_limit_hit(void)
{
    return limit_hit;
}

int tl_decompress_check(const char *what, size_t n, unsigned long long size, unsigned ratio, tl_error *err)
{
    if (size > tl_decompress_bound(n, ratio))
        return tl_fail(err, "%s declares %llu uncompressed bytes for %zu compressed bytes: impossible, input is corrupt",
                       what, size, n);
    if (size > tl_decompress_limit()) {
        limit_hit = 1;
        return tl_fail(err, "%s would decompress to %llu bytes, over the limit of %zu MiB (--max-input-mb)", what,
                       size, tl_decompress_limit() >> 20);
    }
    return 0;
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
