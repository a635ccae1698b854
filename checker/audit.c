#include "audit.h"
#include "trueline/cpus.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "checks/symbol_versions.h"
#include "inputs.h"
#include "load.h"
#include "package_pass.h"
#include "report/suppress.h"
#include "trueline/limits.h"

static unsigned long long input_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

struct work {
    const struct tlck_options *o;
    const struct tlck_check_run *checks;
    struct tlck_inputs *in;   /* heap: an abandoned worker may still read it after tlck_audit_run returns */
    struct tlck_results *r;
    atomic_size_t next;
    /* --timeout: each input's state, guarded by mu, so a worker that overruns can be abandoned (its file reported
     * as timed out) without racing the worker that still holds it: results are published under mu, never
     * written in place. */
    pthread_mutex_t mu;
    unsigned char *state;   /* 0 pending/running, 1 done, 2 abandoned, 3 deferred: read again when the others are done */
    atomic_size_t done;
    struct slot *slots;
    size_t nslots, capslots;
    atomic_size_t live;     /* worker threads still in worker() */
    int progress;
    pthread_mutex_t progress_lock;
    tl_pool pool;           /* the run's memory budget, shared by the workers (--max-run-mb) */
};

/* What a worker is busy with, for the watchdog. */
struct slot {
    struct work *w;
    atomic_size_t idx;      /* input index, SIZE_MAX when idle */
    _Atomic long long since_ms;
    int abandoned;
};

/* The registry's rows as the reports name them (report.h): the emitters read the results alone. */
static void copy_rules(struct tlck_results *r)
{
    r->rules = calloc(tlck_ncheck ? tlck_ncheck : 1, sizeof *r->rules);
    for (size_t i = 0; r->rules && i < tlck_ncheck; i++)
        r->rules[i] = (struct tlck_rule){ tlck_checks[i]->id, tlck_checks[i]->default_severity,
                                          tlck_checks[i]->summary, tlck_checks[i]->help_uri };
    r->nrules = r->rules ? tlck_ncheck : 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void check_one(struct work *w, size_t i, int last_try)
{
    struct tlck_file f;
    struct tlck_findings fs = { 0 };
    if (tlck_load_file_in(&w->in->v[i], w->o, &w->pool, &f) == TLCK_LOAD_DEFERRED && !last_try) {
        /* it gave way to inputs read at the same time that hold the run's budget: read alone at the end, it
         * gets what it would have had at -j1, so the report does not depend on -j */
        tlck_file_free(&f);
        pthread_mutex_lock(&w->mu);
        if (w->state[i] == 0) {
            w->state[i] = 3;
            atomic_fetch_add(&w->done, 1);
        }
        pthread_mutex_unlock(&w->mu);
        return;
    }
    if (!f.error)
        tlck_check_run_file(w->checks, &f, &fs);
    tlck_suppress_apply(&fs, w->checks->p);
    pthread_mutex_lock(&w->mu);
    if (w->state[i] == 0) {
        w->r->files[i] = f;
        w->r->findings[i] = fs;
        w->state[i] = 1;
        size_t done = atomic_fetch_add(&w->done, 1) + 1;
        if (w->progress) {
            pthread_mutex_lock(&w->progress_lock);
            tlck_progress_tick(done, w->in->n, w->in->v[i].display);
            pthread_mutex_unlock(&w->progress_lock);
        }
    } else {
        tlck_file_free(&f); /* abandoned by the watchdog: its timeout error is already published */
        tlck_findings_free(&fs);
    }
    pthread_mutex_unlock(&w->mu);
}

static void *worker(void *arg)
{
    struct slot *s = arg;
    struct work *w = s->w;
    size_t i;
    while ((i = atomic_fetch_add(&w->next, 1)) < w->in->n) {
        atomic_store(&s->since_ms, now_ms());
        atomic_store(&s->idx, i);
        check_one(w, i, 0);
        atomic_store(&s->idx, SIZE_MAX);
    }
    atomic_fetch_sub(&w->live, 1);
    return NULL;
}

/* Work and the inputs it points into stay reachable (for LeakSanitizer too) while an abandoned worker may still
 * be reading them; the process exits soon after. */
static struct work *abandoned_work;

static int start_worker(struct work *w, pthread_t *t)
{
    struct slot *s = &w->slots[w->nslots];
    s->w = w;
    atomic_init(&s->idx, SIZE_MAX);
    atomic_init(&s->since_ms, now_ms());
    s->abandoned = 0;
    atomic_fetch_add(&w->live, 1);
    if (pthread_create(t, NULL, worker, s) != 0) {
        atomic_fetch_sub(&w->live, 1);
        return -1;
    }
    w->nslots++;
    return 0;
}

/* A reader that never polls its deadline (stuck inside a library) is abandoned at twice the limit: its file is
 * reported as timed out and a fresh worker takes over the rest. Readers that poll stop at the limit themselves. */
static size_t watchdog(struct work *w, pthread_t *t, size_t cap)
{
    size_t stuck = 0;
    long long limit = 2000LL * w->o->timeout_s;
    while (atomic_load(&w->done) < w->in->n) {
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
        for (size_t k = 0; k < w->nslots; k++) {
            struct slot *s = &w->slots[k];
            size_t i = atomic_load(&s->idx);
            if (s->abandoned || i == SIZE_MAX || now_ms() - atomic_load(&s->since_ms) < limit)
                continue;
            pthread_mutex_lock(&w->mu);
            if (w->state[i] == 0 && atomic_load(&s->idx) == i) {
                struct tlck_file *f = &w->r->files[i];
                f->display = strdup(w->in->v[i].display);
                f->path = strdup(w->in->v[i].path);
                f->error = tlck_asprintf("time limit of %u s exceeded (--timeout); input abandoned", w->o->timeout_s);
                w->state[i] = 2;
                atomic_fetch_add(&w->done, 1);
                s->abandoned = 1;
                stuck++;
                pthread_detach(t[k]);
                if (w->nslots < cap)
                    start_worker(w, &t[w->nslots]);
            }
            pthread_mutex_unlock(&w->mu);
        }
    }
    return stuck;
}

void tlck_audit_run(const struct tlck_options *o, const struct tlck_check_run *checks,
                    const struct tlck_package_pass *packages, struct tlck_results *r)
{
    struct work *w = calloc(1, sizeof *w);
    struct tlck_inputs *in = calloc(1, sizeof *in);
    memset(r, 0, sizeof *r);
    r->policy = checks->p;
    copy_rules(r);
    in->follow_symlinks = o->follow_symlinks;
    in->o = o;
    tlck_inputs_expand(in, o->inputs, o->ninputs);
    r->nfiles = in->n;
    r->skipped_probes = in->skipped_probes;
    r->skipped_links = in->skipped_links;
    r->skipped_file_links = in->skipped_file_links;
    r->skipped_sdists = in->skipped_sdists;
    r->links = in->links; /* the results own them: the inputs are freed before the report */
    r->nlinks = in->nlinks;
    in->links = NULL;
    in->nlinks = 0;
    r->files = calloc(in->n ? in->n : 1, sizeof *r->files);
    r->findings = calloc(in->n ? in->n : 1, sizeof *r->findings);
    w->o = o;
    w->checks = checks;
    w->in = in;
    w->r = r;
    w->state = calloc(in->n ? in->n : 1, 1);
    pthread_mutex_init(&w->mu, NULL);
    pthread_mutex_init(&w->progress_lock, NULL);
    /* one budget for the run: what one input may hold unless --max-run-mb says more (or less) */
    unsigned long long run_mb = o->max_run_mb ? o->max_run_mb : o->max_input_mb;
    tl_pool_init(&w->pool, run_mb > (SIZE_MAX >> 20) ? SIZE_MAX : (size_t)run_mb << 20);
    w->pool.cap_origin = o->max_run_mb ? "--max-run-mb" : "--max-input-mb, also the run's with no --max-run-mb";
    int big = 0;
    for (size_t i = 0; i < in->n && !big; i++)
        big = in->v[i].size > ((size_t)50 << 20) || (!in->v[i].is_member && input_size(in->v[i].path) > (50ull << 20));
    w->progress = tlck_progress_wanted(o, in->n, big);
    atomic_init(&w->next, 0);
    atomic_init(&w->done, 0);
    atomic_init(&w->live, 0);
    size_t jobs = o->jobs > 0 ? (size_t)o->jobs : (size_t)tl_cpu_count();
    if (jobs > in->n)
        jobs = in->n ? in->n : 1;
    /* With --timeout every input may need a replacement worker; the main thread supervises instead of working. */
    size_t cap = o->timeout_s ? jobs + in->n : jobs;
    w->slots = calloc(cap + 1, sizeof *w->slots);
    pthread_t *t = calloc(cap + 1, sizeof *t);
    size_t stuck = 0;
    if (o->timeout_s) {
        for (size_t k = 0; k < jobs; k++)
            start_worker(w, &t[w->nslots]);
        if (w->nslots == 0)
            start_worker(w, &t[0]);
        stuck = watchdog(w, t, cap);
    } else {
        for (size_t k = 1; k < jobs; k++)
            start_worker(w, &t[w->nslots]);
        struct slot self = { .w = w };
        atomic_init(&self.idx, SIZE_MAX);
        atomic_fetch_add(&w->live, 1);
        worker(&self); /* the main thread works too; with -j1 it is the only one */
    }
    for (size_t k = 0; k < w->nslots; k++)
        if (!w->slots[k].abandoned)
            pthread_join(t[k], NULL);
    free(t);
    for (size_t i = 0; i < in->n; i++)
        if (w->state[i] == 3) { /* deferred: one at a time now, with the run's budget to itself */
            w->state[i] = 0;
            atomic_fetch_sub(&w->done, 1);
            check_one(w, i, 1);
        }
    if (w->progress)
        tlck_progress_done();
    if (o->baseline && tlck_baseline_apply(r, o->baseline) != 0)
        r->unreadable++; /* an unreadable baseline is a bad input: exit 2 */
    for (size_t i = 0; i < r->nfiles; i++) {
        if (r->files[i].error)
            r->unreadable++;
        for (size_t k = 0; k < r->findings[i].n; k++) {
            const struct tlck_finding *x = &r->findings[i].v[k];
            if (x->suppressed)
                r->suppressed++;
            else
                r->counts[x->severity]++;
        }
    }
    /* the package pass: each package judged once, after its members' findings and suppressions are final */
    tlck_package_pass_run(packages, r);
    if (stuck) {
        abandoned_work = w;
        return;
    }
    pthread_mutex_destroy(&w->mu);
    pthread_mutex_destroy(&w->progress_lock);
    tl_pool_destroy(&w->pool);
    free(w->state);
    free(w->slots);
    free(w);
    tlck_inputs_free(in);
    free(in);
}

void tlck_results_free(struct tlck_results *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        tlck_file_free(&r->files[i]);
        tlck_findings_free(&r->findings[i]);
    }
    free(r->files);
    free(r->findings);
    tlck_packages_free(r->packages, r->npackages);
    free(r->rules);
    tlck_package_links_free(r->links, r->nlinks);
    memset(r, 0, sizeof *r);
}

int tlck_audit_exit_status(const struct tlck_results *r, const struct tlck_options *o)
{
    if (r->unreadable)
        return 2;
    /* a claim not met weighs as a finding of symbol-versions, the check of platform floors: off (--checks
     * without it, [checks] symbol-versions = off) it does not fail, and its severity meets --fail-on */
    enum tlck_severity claim = r->policy ? tlck_policy_severity(r->policy, tlck_check_symbol_versions.id,
                                                                tlck_check_symbol_versions.default_severity)
                                         : TLCK_SEV_ERROR;
    if (r->packages_not_met && claim != TLCK_SEV_NONE && claim >= o->fail_on)
        return 1;
    for (int s = o->fail_on; s <= TLCK_SEV_ERROR; s++)
        if (s > TLCK_SEV_NONE && r->counts[s])
            return 1;
    return 0;
}

/* The report has only been written once its stream is flushed: a full disk or a closed stdout shows up here, not
 * in the reports' own ferror(), which runs while the last buffer is still held. Closes out unless it is stdout. */
static int finish_output(FILE *out, const char *name)
{
    int err = fflush(out) != 0 ? errno : ferror(out) ? (errno ? errno : EIO) : 0;
    if (out != stdout && fclose(out) != 0 && !err)
        err = errno;
    if (err)
        fprintf(stderr, "trueline-check: cannot write %s: %s\n", name, strerror(err));
    return err ? -1 : 0;
}

/* Whether two descriptors write to the same place (a terminal, or a file or pipe both were pointed at). */
static int same_stream(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
           sa.st_rdev == sb.st_rdev;
}

int tlck_audit_main(const struct tlck_options *o, const struct tlck_policy *p)
{
    /* The configuration is checked, and what the checks need loaded, before any input is read: a bad value is a
     * usage error. */
    struct tlck_check_run checks;
    struct tlck_package_pass packages;
    tl_error err;
    if (tlck_check_run_prepare(&checks, p, &err) != 0) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        return 2;
    }
    if (tlck_package_pass_prepare(&packages, &checks, &err) != 0) {
        fprintf(stderr, "trueline-check: %s\n", err.msg);
        tlck_check_run_release(&checks);
        return 2;
    }
    struct tlck_results r;
    tlck_audit_run(o, &checks, &packages, &r);
    FILE *out = stdout;
    if (o->output && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "trueline-check: cannot write %s: %s\n", o->output, strerror(errno));
        tlck_results_free(&r);
        tlck_package_pass_release(&packages);
        tlck_check_run_release(&checks);
        return 2;
    }
    int rc = tlck_report_write(out, &r, o);
    int wrc = finish_output(out, o->output ? o->output : "standard output");
    if (rc != 0 && wrc == 0) /* not a write error (said above): an unknown format */
        fprintf(stderr, "trueline-check: report format '%s' failed\n", o->format);
    /* tlck_baseline_write names the baseline file and the error itself. */
    if (o->write_baseline && tlck_baseline_write(&r, o, o->write_baseline) != 0)
        wrc = -1;
    int status = rc != 0 || wrc != 0 ? 2 : tlck_audit_exit_status(&r, o);
    if (r.nfiles == 0 && !o->allow_empty) {
        /* a CI gate over an empty or wrong directory must not pass having checked nothing */
        fprintf(stderr, "trueline-check: no file to check in the inputs given (ELF files, archives, cubins, fatbins); "
                        "--allow-empty accepts that\n");
        status = 2;
    }
    /* An unreadable input is named on stderr too (scripts read it there), unless the text report already said
     * it where stderr goes: the same terminal or file as stdout, where the line would show twice. */
    int said = strcmp(o->format, "text") == 0 && !o->output && same_stream(STDOUT_FILENO, STDERR_FILENO);
    for (size_t i = 0; i < r.nfiles && !said; i++)
        if (r.files[i].error)
            fprintf(stderr, "trueline-check: %s: %s\n", r.files[i].display, r.files[i].error);
    tlck_results_free(&r);
    tlck_package_pass_release(&packages);
    tlck_check_run_release(&checks);
    return status;
}
