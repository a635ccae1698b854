/* The run's memory pool (lib/limits.c, tl_pool): budgets of inputs read at the same time take from it; a take
 * that does not fit waits for another input to give back, and gives way (deferred) instead when every other
 * holder waits too, so that waiting never deadlocks. */
#include <pthread.h>
#include <time.h>

#include "trueline/limits.h"
#include "unit.h"

#define MiB ((size_t)1 << 20)

struct taker {
    tl_budget *b;
    size_t n;
    int rc;
};

static void *take(void *arg)
{
    struct taker *t = arg;
    tl_error err;
    t->rc = tl_budget_take(t->b, "a buffer", 0, t->n, 0, &err);
    return NULL;
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* One input alone takes what fits and is refused past it, its own cap being the pool's. */
static void alone(void)
{
    tl_pool p;
    tl_pool_init(&p, 10 * MiB);
    tl_budget a;
    tl_budget_init(&a, 10 * MiB, 0);
    a.pool = &p;
    tl_error err;
    UNIT_CHECK("6 MiB of 10 fit", tl_budget_take(&a, "x", 0, 6 * MiB, 0, &err) == 0 && p.held == 6 * MiB);
    UNIT_CHECK("6 more do not", tl_budget_take(&a, "x", 0, 6 * MiB, 0, &err) != 0 && !tl_budget_deferred(&a));
    tl_budget_release(&a);
    UNIT_CHECK("released: the pool is empty", p.held == 0 && p.holders == 0);
    tl_pool_destroy(&p);
}

/* A second input waits while the first still reads, and goes ahead when it gives back. */
static void waits(void)
{
    tl_pool p;
    tl_pool_init(&p, 10 * MiB);
    tl_budget a, b;
    tl_budget_init(&a, 10 * MiB, 0);
    tl_budget_init(&b, 10 * MiB, 0);
    a.pool = b.pool = &p;
    tl_error err;
    UNIT_CHECK("the first takes 6 MiB", tl_budget_take(&a, "x", 0, 6 * MiB, 0, &err) == 0);
    struct taker t = { &b, 6 * MiB, -9 };
    pthread_t th;
    pthread_create(&th, NULL, take, &t);
    nap_ms(300);
    pthread_mutex_lock(&p.lock);
    size_t held = p.held;
    pthread_mutex_unlock(&p.lock);
    UNIT_CHECK("the second waits (nothing taken yet)", held == 6 * MiB);
    tl_budget_release(&a);
    pthread_join(th, NULL);
    UNIT_CHECK("then takes its 6 MiB", t.rc == 0 && p.held == 6 * MiB && !tl_budget_deferred(&b));
    tl_budget_release(&b);
    tl_pool_destroy(&p);
}

/* Two inputs each holding some, each wanting more than is left: one waits, the other gives way, and the first
 * goes ahead once the one that gave way released what it held. */
static void gives_way(void)
{
    tl_pool p;
    tl_pool_init(&p, 10 * MiB);
    tl_budget a, b;
    tl_budget_init(&a, 10 * MiB, 0);
    tl_budget_init(&b, 10 * MiB, 0);
    a.pool = b.pool = &p;
    tl_error err;
    UNIT_CHECK("a takes 4", tl_budget_take(&a, "x", 0, 4 * MiB, 0, &err) == 0);
    UNIT_CHECK("b takes 4", tl_budget_take(&b, "x", 0, 4 * MiB, 0, &err) == 0);
    struct taker t = { &a, 4 * MiB, -9 };
    pthread_t th;
    pthread_create(&th, NULL, take, &t); /* a waits for b */
    nap_ms(300);
    UNIT_CHECK("b, asking while a waits, gives way", tl_budget_take(&b, "x", 0, 4 * MiB, 0, &err) != 0 &&
               tl_budget_deferred(&b));
    tl_budget_release(&b);
    pthread_join(th, NULL);
    UNIT_CHECK("a goes ahead", t.rc == 0 && !tl_budget_deferred(&a) && p.held == 8 * MiB);
    tl_budget_release(&a);
    UNIT_CHECK("nothing left held", p.held == 0 && p.holders == 0);
    tl_pool_destroy(&p);
}

UNIT_MAIN(UNIT_CASE(alone), UNIT_CASE(waits), UNIT_CASE(gives_way))
