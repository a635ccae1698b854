#include "map_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Process-wide by necessity: a signal handler has no other way to reach the mappings. Slots are claimed and
 * released with atomics so that the handler, running in whichever thread faulted, never sees a half-written
 * slot as valid (start is written last on claim and cleared first on release). 512 slots: the checker maps
 * one input per worker thread plus its debug files. */
#define SLOTS 512
static struct slot {
    _Atomic uintptr_t start;
    _Atomic uintptr_t end;
    atomic_int changed;
} slots[SLOTS];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t s = atomic_load(&slots[i].start), e = atomic_load(&slots[i].end);
        if (!s || a < s || a >= e)
            continue;
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t from = a & ~(page - 1);
        /* mmap is a plain system call here: safe in practice in a handler. Zero pages from the fault to the
         * end of the mapping: every later page is past the file's end as well. */
        if (mmap((void *)from, e - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            atomic_store(&slots[i].changed, 1);
            return;
        }
        break;
    }
    /* not ours: whatever handled SIGBUS before (by default, the process ends as it would have) */
    if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction)
        previous.sa_sigaction(sig, si, uctx);
    else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler)
        previous.sa_handler(sig);
    else {
        signal(SIGBUS, SIG_DFL);
        raise(SIGBUS);
    }
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous);
}

int tl_map_guard_add(void *map, size_t len)
{
    if (!map || !len)
        return 0;
    pthread_once(&once, install);
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t zero = 0;
        /* claim with a marker start of 1 (no real address), fill, then publish the real start */
        if (atomic_compare_exchange_strong(&slots[i].start, &zero, (uintptr_t)1)) {
            atomic_store(&slots[i].changed, 0);
            atomic_store(&slots[i].end, (uintptr_t)map + len);
            atomic_store(&slots[i].start, (uintptr_t)map);
            return 0;
        }
    }
    return -1;
}

static struct slot *find(const void *map)
{
    for (int i = 0; map && i < SLOTS; i++)
        if (atomic_load(&slots[i].start) == (uintptr_t)map)
            return &slots[i];
    return NULL;
}

int tl_map_guard_changed(const void *map)
{
    struct slot *s = find(map);
    return s && atomic_load(&s->changed);
}

int tl_map_guard_remove(void *map)
{
    struct slot *s = find(map);
    if (!s)
        return 0;
    int changed = atomic_load(&s->changed);
    atomic_store(&s->end, 0);
    atomic_store(&s->start, 0);
    return changed;
}
