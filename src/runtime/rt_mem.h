/* runtime: the heap's memory at symh_init (rt_mem.c): SYMH_HEAP_POPULATE, and the memory cgroup's
 * limit. */
#ifndef SYMH_RT_MEM_H
#define SYMH_RT_MEM_H

#include <stddef.h>

/* Collective, after the heap is mapped: exchanges each PE's heap size and memory cgroup; then
 * with SYMH_HEAP_POPULATE=1 allocates this PE's heap (SYMH_OK, or its status with the line to log
 * in `message`), else warns (the lowest PE of each cgroup whose PEs' heaps exceed its limit,
 * once) and returns SYMH_OK. The caller agrees on the outcome. */
int symh_rt_mem_init(char *message, size_t len);

#endif /* SYMH_RT_MEM_H */
