#include "audit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/checks.h"
#include "inputs.h"
#include "load.h"
#include "report/suppress.h"

static unsigned long long input_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

struct work {
    const struct tl_options *o;
    const struct tl_policy *p;
    const struct tl_inputs *in;
    struct tl_results *r;
    atomic_size_t next, done;
    int progress;
    pthread_mutex_t progress_lock;
};

static void check_one(struct work *w, size_t i)
{
    struct tl_file *f = &w->r->files[i];
    tl_load_file(&w->in->v[i], w->o, f);
    if (f->error)
        return;
    for (size_t c = 0; c < tl_ncheck; c++) {
        const struct tl_check *chk = tl_checks[c];
        enum tl_severity sev = tl_policy_severity(w->p, chk->id, chk->default_severity);
        if (sev != TL_SEV_NONE)
            chk->run(f, w->p, sev, &w->r->findings[i]);
    }
    tl_suppress_apply(&w->r->findings[i], w->p);
}

static void *worker(void *arg)
{
    struct work *w = arg;
    size_t i;
    while ((i = atomic_fetch_add(&w->next, 1)) < w->in->n) {
        check_one(w, i);
        size_t done = atomic_fetch_add(&w->done, 1) + 1;
        if (w->progress) {
            pthread_mutex_lock(&w->progress_lock);
            tl_progress_tick(done, w->in->n, w->in->v[i].display);
            pthread_mutex_unlock(&w->progress_lock);
        }
    }
    return NULL;
}

void tl_audit_run(const struct tl_options *o, const struct tl_policy *p, struct tl_results *r)
{
    struct tl_inputs in = { 0 };
    memset(r, 0, sizeof *r);
    tl_inputs_expand(&in, o->inputs, o->ninputs);
    r->nfiles = in.n;
    r->files = calloc(in.n ? in.n : 1, sizeof *r->files);
    r->findings = calloc(in.n ? in.n : 1, sizeof *r->findings);
    struct work w = { .o = o, .p = p, .in = &in, .r = r };
    atomic_init(&w.next, 0);
    atomic_init(&w.done, 0);
    pthread_mutex_init(&w.progress_lock, NULL);
    int big = 0;
    for (size_t i = 0; i < in.n && !big; i++)
        big = in.v[i].size > ((size_t)50 << 20) || (!in.v[i].is_member && input_size(in.v[i].path) > (50ull << 20));
    w.progress = tl_progress_wanted(o, in.n, big);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t jobs = o->jobs > 0 ? (size_t)o->jobs : (size_t)(ncpu > 0 ? ncpu : 1);
    if (jobs > in.n)
        jobs = in.n ? in.n : 1;
    pthread_t *t = calloc(jobs, sizeof *t);
    size_t started = 0;
    for (size_t k = 1; k < jobs; k++)
        if (pthread_create(&t[started], NULL, worker, &w) == 0)
            started++;
    worker(&w); /* the main thread works too; with -j1 it is the only one */
    for (size_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
    if (w.progress)
        tl_progress_done();
    pthread_mutex_destroy(&w.progress_lock);
    if (o->baseline && tl_baseline_apply(r, o->baseline) != 0)
        r->unreadable++; /* an unreadable baseline is a bad input: exit 2 */
    for (size_t i = 0; i < r->nfiles; i++) {
        if (r->files[i].error)
            r->unreadable++;
        for (size_t k = 0; k < r->findings[i].n; k++) {
            const struct tl_finding *x = &r->findings[i].v[k];
            if (x->suppressed)
                r->suppressed++;
            else
                r->counts[x->severity]++;
        }
    }
    tl_inputs_free(&in);
}

void tl_results_free(struct tl_results *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        tl_file_free(&r->files[i]);
        tl_findings_free(&r->findings[i]);
    }
    free(r->files);
    free(r->findings);
    memset(r, 0, sizeof *r);
}

int tl_audit_exit_status(const struct tl_results *r, const struct tl_options *o)
{
    if (r->unreadable)
        return 2;
    for (int s = o->fail_on; s <= TL_SEV_ERROR; s++)
        if (s > TL_SEV_NONE && r->counts[s])
            return 1;
    return 0;
}

int tl_audit_main(const struct tl_options *o, const struct tl_policy *p)
{
    struct tl_results r;
    tl_audit_run(o, p, &r);
    FILE *out = stdout;
    if (o->output && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "trueline-check: %s: cannot write report\n", o->output);
        tl_results_free(&r);
        return 2;
    }
    int rc = tl_report_write(out, &r, o);
    if (o->write_baseline && tl_baseline_write(&r, o, o->write_baseline) != 0)
        rc = -1;
    if (out != stdout)
        fclose(out);
    int status = rc != 0 ? 2 : tl_audit_exit_status(&r, o);
    if (rc != 0)
        fprintf(stderr, "trueline-check: report format '%s' failed\n", o->format);
    for (size_t i = 0; i < r.nfiles; i++)
        if (r.files[i].error)
            fprintf(stderr, "trueline-check: %s: %s\n", r.files[i].display, r.files[i].error);
    tl_results_free(&r);
    return status;
}
