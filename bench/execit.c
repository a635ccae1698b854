/* Floor program for bench/wrapper.sh and bench/provenance.sh: does nothing but exec its arguments, so that
 * what one more static program in front of ccache costs is measured apart from what trueline-cc does. */
#include <unistd.h>

int main(int argc, char **argv)
{
    (void)argc;
    execvp(argv[1], argv + 1);
    return 127;
}
