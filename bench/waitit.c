/* Floor program for bench/provenance.sh: runs its arguments as a vfork child and waits, doing nothing else.
 * Against bench/execit.c it measures what waiting for ccache costs by itself (the waiting wrapper's floor). */
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    (void)argc;
    pid_t pid = vfork();
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
