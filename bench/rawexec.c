/* Floor program for bench/wrapper.sh, beside execit.c: execs its arguments with no C library at all (x86-64
 * Linux, built -nostdlib), so that the floor is split into what the kernel's exec costs and what a C library's
 * start-up adds (on a virtual machine, glibc's CPU-feature and cache-size probes: each `cpuid` traps to the
 * hypervisor). A measuring tool only: trueline-cc itself is an ordinary glibc program. */
#include <sys/syscall.h>

static long syscall3(long n, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}

/* sp: the initial stack, argc then argv[] then NULL then envp[] */
__attribute__((used)) void rawexec_start(long *sp)
{
    long argc = sp[0];
    char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
    if (argc > 1)
        syscall3(SYS_execve, (long)argv[1], (long)(argv + 1), (long)envp);
    syscall3(SYS_exit_group, 127, 0, 0);
}

__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall rawexec_start\n\thlt\n");
