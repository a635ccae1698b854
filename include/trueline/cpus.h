/* How many CPUs this process may run on. */
#ifndef TRUELINE_CPUS_H
#define TRUELINE_CPUS_H

/* The CPUs in this process's affinity mask (taskset, cpusets, container limits), falling back to the online
 * count; at least 1. sysconf(_SC_NPROCESSORS_ONLN) alone counts the host's CPUs: pinned to 2 of 16 CPUs, the
 * checker started 16 decompression threads, each with its own buffer (298 MB peak on libcublasLt, GPU machine). */
int tl_cpu_count(void);

#endif
