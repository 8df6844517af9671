/* runtime: the heap's memory at symh_init (docs/heap.md "The heap's memory"). The heap is a
 * memory object whose pages cost memory when first touched, so a heap larger than the memory
 * cgroup allows starts fine and its PE is killed later by the OOM killer, without a line. Two
 * answers: SYMH_HEAP_POPULATE=1 allocates the whole heap at init (the host backend's populate,
 * which fails instead of being killed), so the job fails there with one line; and otherwise a
 * warning at init when the heaps of the PEs that share a cgroup exceed its limit. A step of
 * several layers (core's cgroup reader, the bootstrap's exchange, the heap and its backend),
 * hence the runtime's. */
#include "runtime/rt_mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "core/core_cgroup.h"
#include "core/core_config.h"
#include "core/core_log.h"
#include "heap/heap_window.h"

/* What each PE tells the others: its heap, and the cgroup that limits its memory. */
typedef struct {
    uint64_t heap_size;
    uint64_t limit; /* 0: no memory cgroup limits this PE */
    uint64_t key;   /* the limiting cgroup (0 without a limit) */
} symh_rt_mem_pe_t;

static uint64_t symh_rt_mem_hash(uint64_t hash, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t i;

    for (i = 0; i < len; ++i)
        hash = (hash ^ p[i]) * 1099511628211ULL; /* FNV-1a */
    return hash;
}

/* The limiting cgroup's identity across the job: its directory's device and inode, and this
 * machine's boot (another machine may number its cgroup directories alike). */
static uint64_t symh_rt_mem_key(const symh_cgroup_memory_t *cg)
{
    char boot_id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    uint64_t key = 14695981039346656037ULL;

    if (f != NULL) {
        if (fgets(boot_id, sizeof(boot_id), f) == NULL)
            boot_id[0] = '\0';
        fclose(f);
    }
    key = symh_rt_mem_hash(key, boot_id, strlen(boot_id));
    key = symh_rt_mem_hash(key, &cg->dev, sizeof(cg->dev));
    key = symh_rt_mem_hash(key, &cg->ino, sizeof(cg->ino));
    return key != 0 ? key : 1;
}

static void symh_rt_mem_text(uint64_t bytes, char *text, size_t len)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
    double value = (double)bytes;
    int unit = -1;

    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        ++unit;
    }
    if (unit < 0)
        snprintf(text, len, "%llu bytes", (unsigned long long)bytes);
    else
        snprintf(text, len, "%.1f %s", value, units[unit]);
}

int symh_rt_mem_init(char *message, size_t len)
{
    symh_cgroup_memory_t cg;
    symh_rt_mem_pe_t mine = { 0 }, other;
    uint64_t total = 0;
    size_t stride = 0;
    void *all = NULL;
    int n = 0, lowest = -1, pe, status;
    char heap[32], limit[32], sum[32], why[256], where[512] = "";

    symh_cgroup_memory("/proc/self", &cg);
    mine.heap_size = symh_heap_window.heap_size;
    mine.limit = cg.limit;
    mine.key = cg.limit != 0 ? symh_rt_mem_key(&cg) : 0;
    status = symh_boot_exchange(SYMH_OK, &mine, sizeof(mine), "rt: the heaps' memory limits", &all,
                                &stride);
    if (status != SYMH_OK)
        return status; /* agreed; the exchange said why */
    for (pe = 0; pe < symh_boot_info.n_pes && mine.key != 0; ++pe) {
        memcpy(&other, (const char *)all + (size_t)pe * stride, sizeof(other));
        if (other.key != mine.key)
            continue;
        total += other.heap_size;
        ++n;
        if (lowest < 0)
            lowest = pe;
    }
    free(all);
    symh_rt_mem_text(mine.heap_size, heap, sizeof(heap));
    symh_rt_mem_text(mine.limit, limit, sizeof(limit));
    symh_rt_mem_text(total, sum, sizeof(sum));
    if (mine.key != 0) {
        int at =
            snprintf(where, sizeof(where), "its memory cgroup %s (cgroup v%d) has a limit of %s",
                     cg.path, cg.version, limit);
        if (n > 1 && at > 0 && (size_t)at < sizeof(where))
            snprintf(where + at, sizeof(where) - (size_t)at,
                     ", and the heaps of the %d PEs in it come to %s", n, sum);
    }

    if (!symh_config_bool(SYMH_CFG_HEAP_POPULATE)) {
        if (mine.key != 0 && total > mine.limit && lowest == symh_boot_info.my_pe)
            symh_warn("symh_init: PE %d's heap is %s (SYMH_HEAP_SIZE=%s), but %s: a PE that "
                      "touches more of its heap than the limit leaves is killed by the "
                      "out-of-memory killer, without a line; lower SYMH_HEAP_SIZE, or set "
                      "SYMH_HEAP_POPULATE=1 to allocate the heap at symh_init and fail there "
                      "instead",
                      symh_boot_info.my_pe, heap, symh_config_text(SYMH_CFG_HEAP_SIZE), where);
        return SYMH_OK;
    }
    status = symh_heap_populate(why, sizeof(why));
    if (status != SYMH_OK)
        snprintf(message, len,
                 "SYMH_HEAP_POPULATE=1: PE %d cannot allocate its %s heap (SYMH_HEAP_SIZE=%s): "
                 "%s%s%s; lower SYMH_HEAP_SIZE or give the job more memory",
                 symh_boot_info.my_pe, heap, symh_config_text(SYMH_CFG_HEAP_SIZE), why,
                 where[0] != '\0' ? "; " : "", where);
    return status;
}
