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

void tl_pool_init(tl_pool *p, size_t cap)
{
    memset(p, 0, sizeof *p);
    p->cap = cap ? cap : TL_BUDGET_DEFAULT;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->room, NULL);
}

void tl_pool_destroy(tl_pool *p)
{
    pthread_cond_destroy(&p->room);
    pthread_mutex_destroy(&p->lock);
}

void tl_budget_init(tl_budget *b, size_t cap, unsigned seconds)
{
    memset(b, 0, sizeof *b);
    b->cap = cap ? cap : TL_BUDGET_DEFAULT;
    atomic_init(&b->held, 0);
    atomic_init(&b->hit, 0);
    atomic_init(&b->deferred, 0);
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

static int expired_at(const struct timespec *d)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > d->tv_sec || (now.tv_sec == d->tv_sec && now.tv_nsec >= d->tv_nsec);
}

/* Takes n bytes of the run's pool for b, waiting while other inputs hold what is missing. Waiting cannot
 * deadlock: when every other holder waits as well, the input asking gives way (deferred) and says so. */
static int pool_take(tl_budget *b, const char *what, size_t n, tl_error *err)
{
    tl_pool *p = b->pool;
    char msg[320], o[80];
    int rc = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (n <= p->cap - p->held) {
            p->holders += b->pool_held == 0 && n;
            b->pool_held += n;
            p->held += n;
            break;
        }
        unsigned others = p->holders - (b->pool_held != 0);
        if (b->seconds && expired_at(&b->deadline)) {
            snprintf(msg, sizeof msg, "time limit of %u s exceeded%s while %s waited for memory other inputs hold",
                     b->seconds, origin(b->deadline_origin, o, sizeof o), what);
            record(b, msg);
            rc = tl_fail(err, "%s", msg);
            break;
        }
        if (others == 0 || p->waiting >= others) {
            /* what is missing is held by inputs that wait themselves (or by nobody): this one gives way */
            snprintf(msg, sizeof msg, "%s would bring what the inputs read at the same time hold to %zu bytes, "
                     "over the limit of %zu MiB for the run%s", what, p->held + n, p->cap >> 20,
                     origin(p->cap_origin, o, sizeof o));
            if (others)
                atomic_store(&b->deferred, 1);
            record(b, msg);
            rc = tl_fail(err, "%s", msg);
            break;
        }
        /* others hold what is missing and some of them are still reading: wait for them to give it back (the
         * deadline is looked at now and then) */
        p->waiting++;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->room, &p->lock, &until);
        p->waiting--;
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
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
    if (b->pool && pool_take(b, what, (size_t)size, err) != 0) {
        atomic_fetch_sub(&b->held, (size_t)size);
        return -1;
    }
    return 0;
}

void tl_budget_give(tl_budget *b, size_t n)
{
    if (!b || !n)
        return;
    atomic_fetch_sub(&b->held, n);
    tl_pool *p = b->pool;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    n = n < b->pool_held ? n : b->pool_held;
    b->pool_held -= n;
    p->held -= n;
    p->holders -= b->pool_held == 0 && n;
    pthread_cond_broadcast(&p->room);
    pthread_mutex_unlock(&p->lock);
}

void tl_budget_release(tl_budget *b)
{
    if (b && b->pool)
        tl_budget_give(b, b->pool_held);
}

int tl_budget_deferred(const tl_budget *b)
{
    return b && atomic_load(&b->deferred);
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
