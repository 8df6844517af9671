/* core: the memory limit of this process's cgroup (v2 memory.max, v1 memory.limit_in_bytes), the
 * lowest over its cgroup and every ancestor, found from /proc/self/cgroup and mountinfo. */
#ifndef SYMH_CORE_CGROUP_H
#define SYMH_CORE_CGROUP_H

#include <stddef.h>

typedef struct {
    /* Bytes the limiting cgroup allows its processes together; 0 when no memory cgroup limits
     * this process (none mounted, "max" everywhere, or v1's "unlimited", above 2^62). */
    unsigned long long limit;
    /* The limiting cgroup as /proc/self/cgroup names paths ("/a/b"), and the identity of its
     * directory (st_dev, st_ino), the same for every process it holds; empty and 0 without a
     * limit. */
    char path[256];
    unsigned long long dev, ino;
    /* 1 or 2: the cgroup version of the memory controller; 0 when none was found. */
    int version;
} symh_cgroup_memory_t;

/* Reads the limit for the process whose /proc directory is `proc_self` ("/proc/self"; the tests
 * give a directory holding a "cgroup" and a "mountinfo" whose mount points lie in a tree of their
 * own). Never fails: what cannot be read counts as no limit. */
void symh_cgroup_memory(const char *proc_self, symh_cgroup_memory_t *out);

#endif /* SYMH_CORE_CGROUP_H */
