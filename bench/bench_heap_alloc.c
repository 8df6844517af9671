/* bench_heap_alloc: throughput of the heap allocator (src/heap/heap_alloc.c) against glibc
 * malloc/free on one fixed pseudo-random sequence of allocations (16 B - 64 KiB, log-uniform) and
 * frees, replayed on both in the same run; medians of --reps repetitions, printed as a table. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include <symheap/status.h>

#include "heap/heap_alloc.h"

#define BENCH_SEED      UINT64_C(0x5eed0f5e1f15ab1e)
#define BENCH_HEAP_SIZE ((size_t)1 << 30) /* offsets only: nothing is mapped */
#define BENCH_MAX_REPS  101

/* One operation: allocate `size` bytes into `slot`, or (size 0) free the block in `slot` and
 * move the last live block into it. */
typedef struct {
    uint32_t slot;
    uint32_t size;
} bench_op_t;

static uint64_t bench_next(uint64_t *state)
{
    /* splitmix64: the same sequence on every machine */
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Allocates with probability (max_live - live) / max_live, so the live set hovers around
 * max_live / 2; sizes are uniform within a power of two, each power of two from 16 B to 32 KiB
 * equally likely (log-uniform over 16 B - 64 KiB). */
static void bench_generate(bench_op_t *ops, size_t n, uint32_t max_live)
{
    uint64_t state = BENCH_SEED;
    uint32_t live = 0;
    size_t i;

    for (i = 0; i < n; ++i) {
        uint64_t r = bench_next(&state);

        if (live == 0 || (live < max_live && r % max_live >= live)) {
            unsigned e = 4 + (unsigned)(bench_next(&state) % 12);

            ops[i].slot = live++;
            ops[i].size = (uint32_t)((UINT64_C(1) << e) + bench_next(&state) % (UINT64_C(1) << e));
        } else {
            ops[i].slot = (uint32_t)(bench_next(&state) % live);
            ops[i].size = 0;
            live--;
        }
    }
}

/* Seconds for the sequence on symheap's allocator; negative on any failure. */
static double bench_symheap(const bench_op_t *ops, size_t n, size_t *offsets)
{
    symh_heap_alloc_t *alloc;
    size_t i, live = 0;
    double t0, t1;
    int failed = 0;

    if (symh_heap_alloc_create(BENCH_HEAP_SIZE, &alloc) != SYMH_OK)
        return -1;
    t0 = symh_bench_now();
    for (i = 0; i < n; ++i) {
        if (ops[i].size != 0) {
            failed |= symh_heap_alloc_alloc(alloc, ops[i].size, SYMH_HEAP_ALLOC_GRANULE,
                                            &offsets[ops[i].slot]);
            live++;
        } else {
            failed |= symh_heap_alloc_free(alloc, offsets[ops[i].slot]);
            offsets[ops[i].slot] = offsets[--live];
        }
    }
    t1 = symh_bench_now();
    /* Untimed: the allocator's own invariant walk, then everything back. */
    failed |= symh_heap_alloc_check(alloc);
    for (i = 0; i < live; ++i)
        failed |= symh_heap_alloc_free(alloc, offsets[i]);
    symh_heap_alloc_destroy(alloc);
    return failed ? -1 : t1 - t0;
}

/* Seconds for the same sequence on malloc/free; negative on any failure. */
static double bench_glibc(const bench_op_t *ops, size_t n, void **ptrs)
{
    size_t i, live = 0;
    double t0, t1;
    int failed = 0;

    t0 = symh_bench_now();
    for (i = 0; i < n; ++i) {
        if (ops[i].size != 0) {
            ptrs[ops[i].slot] = malloc(ops[i].size);
            failed |= ptrs[ops[i].slot] == NULL;
            live++;
        } else {
            free(ptrs[ops[i].slot]);
            ptrs[ops[i].slot] = ptrs[--live];
        }
    }
    t1 = symh_bench_now();
    for (i = 0; i < live; ++i)
        free(ptrs[i]);
    return failed ? -1 : t1 - t0;
}

static int bench_usage(FILE *out)
{
    fprintf(out, "usage: bench_heap_alloc [--ops N] [--reps R] [--live L]\n"
                 "  --ops N   operations per run (allocations and frees), default 1000000\n"
                 "  --reps R  runs of each allocator (medians are printed), default 7\n"
                 "  --live L  most blocks live at once (it hovers around L/2), default 4096\n");
    return out == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    unsigned long long ops_n = 1000000, reps = 7, max_live = 4096;
    double symh_s[BENCH_MAX_REPS], glibc_s[BENCH_MAX_REPS], symh_med, glibc_med;
    bench_op_t *ops;
    size_t *offsets;
    void **ptrs;
    int i;

    for (i = 1; i < argc; ++i) {
        unsigned long long *target = NULL;
        char *end;

        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return bench_usage(stdout);
        if (strcmp(argv[i], "--ops") == 0)
            target = &ops_n;
        else if (strcmp(argv[i], "--reps") == 0)
            target = &reps;
        else if (strcmp(argv[i], "--live") == 0)
            target = &max_live;
        if (target == NULL || i + 1 >= argc)
            return bench_usage(stderr);
        *target = strtoull(argv[++i], &end, 10);
        if (*end != '\0' || *target == 0)
            return bench_usage(stderr);
    }
    if (reps > BENCH_MAX_REPS || max_live > UINT32_MAX / 2 || ops_n > SIZE_MAX / sizeof(*ops)) {
        fprintf(stderr, "bench_heap_alloc: at most %d reps and 2^31 live blocks\n", BENCH_MAX_REPS);
        return 2;
    }

    ops = malloc((size_t)ops_n * sizeof(*ops));
    offsets = malloc((size_t)max_live * sizeof(*offsets));
    ptrs = malloc((size_t)max_live * sizeof(*ptrs));
    if (ops == NULL || offsets == NULL || ptrs == NULL) {
        fprintf(stderr, "bench_heap_alloc: out of memory for %llu operations\n", ops_n);
        return 1;
    }
    bench_generate(ops, (size_t)ops_n, (uint32_t)max_live);

    /* Interleaved, so that both see the same machine state over the run. */
    for (i = 0; i < (int)reps; ++i) {
        symh_s[i] = bench_symheap(ops, (size_t)ops_n, offsets);
        glibc_s[i] = bench_glibc(ops, (size_t)ops_n, ptrs);
        if (symh_s[i] < 0 || glibc_s[i] < 0) {
            fprintf(stderr, "bench_heap_alloc: an allocation failed in repetition %d (%s)\n", i,
                    symh_s[i] < 0 ? "symheap" : "glibc");
            return 1;
        }
    }
    symh_med = symh_bench_median(symh_s, (size_t)reps);
    glibc_med = symh_bench_median(glibc_s, (size_t)reps);

    printf("bench_heap_alloc: %llu operations (allocations of 16 B - 64 KiB, log-uniform, and "
           "frees; at most %llu live), seed 0x%016" PRIx64 ", median of %llu runs\n",
           ops_n, max_live, BENCH_SEED, reps);
#ifdef __clang__
    printf("machine: %ld CPUs online, compiler clang %s\n", sysconf(_SC_NPROCESSORS_ONLN),
           __clang_version__);
#else
    printf("machine: %ld CPUs online, compiler gcc %s\n", sysconf(_SC_NPROCESSORS_ONLN),
           __VERSION__);
#endif
    printf("\n| allocator | ops/s (median) | ns/op (median) |\n|---|---:|---:|\n");
    printf("| symheap heap_alloc | %.2f M | %.1f |\n", (double)ops_n / symh_med / 1e6,
           symh_med / (double)ops_n * 1e9);
    printf("| glibc malloc/free | %.2f M | %.1f |\n", (double)ops_n / glibc_med / 1e6,
           glibc_med / (double)ops_n * 1e9);
    printf("| ratio symheap/glibc | %.2fx | |\n", glibc_med / symh_med);
    free(ptrs);
    free(offsets);
    free(ops);
    return 0;
}
