"""The design floor of bench/wrapper.sh: a C program that makes the system calls a warm trueline-cc hit
makes before it execs the cache (taken from an strace log of one such hit) and nothing else, then execs
what trueline-cc exec'd with the environment trueline-cc gave it. Compiled like the do-nothing floor, it
measures what validating the memo by file identity (the issue's design: a warm lookup costs only stats)
costs the kernel here, apart from trueline-cc's own code.

source(log) -> (C source, system calls it makes before the exec, [calls it could not replay]); the log
comes from `strace -qq -v -s 1000000`."""
import re

CALL = re.compile(r"^(\w+)\((.*)\)\s+= (-?\d+|0x[0-9a-f]+)")


def c_strings(text):
    """The C string literals of an strace argument list, decoded to bytes, with the list nesting depth at
    which each starts ([path, [argv...], [env...]] gives depths 0, 1 and 1 again)."""
    out, depth, i, lists = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == "[":
            depth += 1
            lists += 1
        elif c == "]":
            depth -= 1
        elif c == '"':
            j, buf = i + 1, bytearray()
            while text[j] != '"':
                if text[j] == "\\":
                    j += 1
                    e = text[j]
                    if e in "01234567":
                        k = j
                        while k < j + 3 and text[k] in "01234567":
                            k += 1
                        buf.append(int(text[j:k], 8))
                        j = k
                        continue
                    if e == "x":
                        buf.append(int(text[j + 1:j + 3], 16))
                        j += 3
                        continue
                    buf += {"n": b"\n", "t": b"\t", "r": b"\r", "v": b"\v", "f": b"\f"}.get(e, e.encode())
                else:
                    buf += text[j].encode()
                j += 1
            out.append((lists if depth else 0, bytes(buf)))
            i = j
        i += 1
    return out


def c_literal(b):
    return '"' + "".join(chr(c) if 32 <= c < 127 and chr(c) not in '"\\?' else "\\%03o" % c for c in b) + '"'


def source(log):
    body, skipped, execve, calls = [], [], None, 0
    lines = [l for l in log.splitlines() if CALL.match(l)]
    for line in lines[1:]:  # the first is the exec of trueline-cc itself
        name, args, ret = CALL.match(line).groups()
        strs = [s for _, s in c_strings(args)]
        if name == "execve":
            execve = c_strings(args)
            break
        if name in ("stat", "newfstatat", "statx", "lstat") and strs:
            body.append("    stat(%s, &st);" % c_literal(strs[0]))
        elif name in ("access", "faccessat", "faccessat2") and strs:
            body.append("    access(%s, F_OK);" % c_literal(strs[0]))
        elif name in ("openat", "open") and strs:
            body.append("    touch_file(%s);" % c_literal(strs[0]))
            calls += 3 if ret != "-1" else 0  # its fstat, mmap and close
        elif name == "mmap" and "MAP_ANONYMOUS" in args:
            body.append("    mmap(NULL, %s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);"
                        % args.split(",")[1].strip())
        elif name in ("arch_prctl", "set_tid_address", "set_robust_list", "rseq", "prlimit64", "readlink",
                      "getrandom", "mprotect", "fstat", "close", "brk") or \
                (name == "mmap" and "MAP_ANONYMOUS" not in args):
            # the C library's start-up (static glibc: its robust list, rseq, the stack limit, /proc/self/exe,
            # malloc's random seed, RELRO; the replay, linked alike, makes its own), or the rest of touch_file()
            continue
        else:
            skipped.append(name)
            continue
        calls += 1
    if execve is None:
        raise ValueError("no execve of the cache in the strace log")
    argv = [c_literal(s) for d, s in execve if d == 1]
    envp = [c_literal(s) for d, s in execve if d == 2]
    src = """#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
static char *const argv_[] = { %s, NULL };
static char *const envp_[] = { %s NULL };
static void touch_file(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        const volatile char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        for (off_t i = 0; m != MAP_FAILED && i < st.st_size; i += 4096)
            (void)m[i];
    }
    close(fd);
}
int main(void)
{
    struct stat st;
%s
    execve(argv_[0], argv_, envp_);
    return 127;
}
""" % (", ".join(argv), "".join(e + ", " for e in envp), "\n".join(body))
    return src, calls, skipped
