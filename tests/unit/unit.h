/* Minimal unit-test harness: prints PASS/FAIL lines that tests/run.sh counts. */
#ifndef TL_UNIT_H
#define TL_UNIT_H
#include <stdio.h>
#include <string.h>
static int unit_failed;
#define UNIT_CHECK(name, cond) do { \
    if (cond) printf("PASS %s: %s\n", __FILE__, name); \
    else { printf("FAIL %s: %s (%s:%d: %s)\n", __FILE__, name, __FILE__, __LINE__, #cond); unit_failed = 1; } \
  } while (0)
#define UNIT_STREQ(name, a, b) do { const char *a_ = (a), *b_ = (b); \
    int eq_ = a_ && b_ && strcmp(a_, b_) == 0; UNIT_CHECK(name, eq_); \
    if (!eq_) printf("    got '%s', want '%s'\n", a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
#define UNIT_EXIT() return unit_failed ? 1 : 0
#endif
