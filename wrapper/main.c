/* trueline-cc: placeholder entry point; the wrapper issue fills wrapper/. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: trueline-cc [ccache|sccache] COMPILER ARGS...\n");
        return 2;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
