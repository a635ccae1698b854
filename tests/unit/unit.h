/* Unit-test harness: each file defines its cases as functions and ends with a table,
 *
 *     UNIT_MAIN(UNIT_CASE(hash), UNIT_CASE(config))
 *
 * which the shared runner below goes through in order. Each case prints one line that tests/run.sh counts:
 * `PASS <file>: <case>`, `FAIL <file>: <case>` (after an indented line per failed check) or `SKIP <file>: <case>
 * (<why>)`. `<binary> <case>` runs that case alone; `<binary> --list` names them. The exit status is 1 when a
 * case failed, 2 for an unknown case name. */
#ifndef TL_UNIT_H
#define TL_UNIT_H
#include <stdio.h>
#include <string.h>

struct unit_case {
    const char *name;
    void (*run)(void);
};

/* The running case's outcome. The harness is one process running one case at a time: the checks set it and the
 * runner reads and resets it between cases. */
static struct {
    int failed;
    const char *skipped; /* why, when the case skipped itself */
} unit_now;

/* A failed check prints its name and where; a check that holds prints nothing (the case's line counts). The
 * detail lines are indented: only the case's line starts with PASS/FAIL. */
#define UNIT_CHECK(name, cond) do { \
    if (!(cond)) { printf("    failed: %s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); unit_now.failed = 1; } \
  } while (0)
#define UNIT_STREQ(name, a, b) do { const char *a_ = (a), *b_ = (b); \
    int eq_ = a_ && b_ && strcmp(a_, b_) == 0; UNIT_CHECK(name, eq_); \
    if (!eq_) printf("    got '%s', want '%s'\n", a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
/* Ends the case as skipped (a platform or a tool it needs is missing). */
#define UNIT_SKIP(why) do { unit_now.skipped = (why); return; } while (0)

#define UNIT_CASE(fn) { #fn, fn }

static int unit_run(const char *file, const struct unit_case *cases, size_t n, int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only && strcmp(only, "--list") == 0) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", cases[i].name);
        return 0;
    }
    int failed = 0, ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (only && strcmp(only, cases[i].name) != 0)
            continue;
        ran++;
        unit_now.failed = 0;
        unit_now.skipped = NULL;
        fflush(stdout);
        cases[i].run();
        if (unit_now.failed)
            printf("FAIL %s: %s\n", file, cases[i].name);
        else if (unit_now.skipped)
            printf("SKIP %s: %s (%s)\n", file, cases[i].name, unit_now.skipped);
        else
            printf("PASS %s: %s\n", file, cases[i].name);
        fflush(stdout);
        failed |= unit_now.failed;
    }
    if (only && !ran) {
        fprintf(stderr, "%s: no case named '%s' (--list names them)\n", argv[0], only);
        return 2;
    }
    return failed;
}

#define UNIT_MAIN(...) \
    int main(int argc, char **argv) \
    { \
        static const struct unit_case cases_[] = { __VA_ARGS__ }; \
        return unit_run(__FILE__, cases_, sizeof cases_ / sizeof *cases_, argc, argv); \
    }
#endif
