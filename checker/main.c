/* trueline-check: placeholder entry point; the checker issues fill checker/. */
#include <stdio.h>
int main(void) { fprintf(stderr, "trueline-check: not built yet\n"); return 2; }
