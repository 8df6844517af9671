/* bench_dev_alloc: the registry's cost on the device allocator: symh_dev_alloc + symh_dev_free
 * pairs against the bare per-device resource's symh_mr_allocate + symh_mr_deallocate, in the
 * same run, with --live device allocations (default 1e5) held in the registry throughout;
 * medians of --reps repetitions of --iters pairs each (docs/dev-alloc.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include <symheap.h>

#define BENCH_MAX_REPS 101
#define BENCH_WINDOW   64 /* pairs cycle over this many slots: free the oldest, allocate anew */

static size_t bench_size(size_t i)
{
    return 64 + (i * 2654435761u) % 4032; /* 64 B - 4 KiB, the same sequence on both sides */
}

int main(int argc, char **argv)
{
    size_t live = 100000, iters = 200000, reps = 11, i, r;
    double dev_ns[BENCH_MAX_REPS], bare_ns[BENCH_MAX_REPS], dev_med, bare_med;
    void **held, *win_dev[BENCH_WINDOW] = { 0 }, *win_bare[BENCH_WINDOW] = { 0 };
    size_t win_bytes[BENCH_WINDOW] = { 0 };
    symh_dev_alloc_opts_t opts = { 0, NULL, 0, "bench" };
    symh_mr_t *mr;

    for (i = 1; i + 1 < (size_t)argc; i += 2) {
        size_t v = strtoull(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--live") == 0)
            live = v;
        else if (strcmp(argv[i], "--iters") == 0)
            iters = v;
        else if (strcmp(argv[i], "--reps") == 0)
            reps = v;
        else
            break;
    }
    if (i < (size_t)argc || reps == 0 || reps > BENCH_MAX_REPS || iters == 0) {
        fprintf(stderr, "usage: bench_dev_alloc [--live N] [--iters N] [--reps 1..%d]\n",
                BENCH_MAX_REPS);
        return 2;
    }
    if (symh_init() != SYMH_OK)
        return 1;
    mr = symh_mr_get_per_device(0);
    held = calloc(live ? live : 1, sizeof(*held));
    if (held == NULL || mr == NULL)
        return 1;
    for (i = 0; i < live; ++i)
        if (symh_dev_alloc(&held[i], bench_size(i), &opts) != SYMH_OK)
            return 1;
    for (i = 0; i < BENCH_WINDOW; ++i) {
        win_bytes[i] = bench_size(i + 7);
        if (symh_dev_alloc(&win_dev[i], win_bytes[i], &opts) != SYMH_OK ||
            symh_mr_allocate(mr, win_bytes[i], SYMH_MR_DEFAULT_ALIGNMENT, &win_bare[i]) != SYMH_OK)
            return 1;
    }
    for (r = 0; r < reps; ++r) {
        double t0, t1, t2;

        t0 = symh_bench_now();
        for (i = 0; i < iters; ++i) {
            size_t s = i % BENCH_WINDOW, b = bench_size(i);

            if (symh_dev_free(&win_dev[s], 0) != SYMH_OK ||
                symh_dev_alloc(&win_dev[s], b, &opts) != SYMH_OK)
                return 1;
        }
        t1 = symh_bench_now();
        for (i = 0; i < iters; ++i) {
            size_t s = i % BENCH_WINDOW, b = bench_size(i);

            if (symh_mr_deallocate(mr, win_bare[s], win_bytes[s], SYMH_MR_DEFAULT_ALIGNMENT) !=
                    SYMH_OK ||
                symh_mr_allocate(mr, b, SYMH_MR_DEFAULT_ALIGNMENT, &win_bare[s]) != SYMH_OK)
                return 1;
            win_bytes[s] = b;
        }
        t2 = symh_bench_now();
        dev_ns[r] = (t1 - t0) * 1e9 / (double)iters;
        bare_ns[r] = (t2 - t1) * 1e9 / (double)iters;
    }
    dev_med = symh_bench_median(dev_ns, reps);
    bare_med = symh_bench_median(bare_ns, reps);
    printf("bench_dev_alloc: %zu live device allocations, %zu pairs x %zu reps (medians)\n", live,
           iters, reps);
    printf("%-36s %10s\n", "pair", "ns/pair");
    printf("%-36s %10.1f\n", "symh_dev_alloc + symh_dev_free", dev_med);
    printf("%-36s %10.1f\n", "symh_mr_allocate + symh_mr_deallocate", bare_med);
    printf("%-36s %10.1f (goal < 200)\n", "registry cost", dev_med - bare_med);
    for (i = 0; i < BENCH_WINDOW; ++i) {
        symh_dev_free(&win_dev[i], 0);
        symh_mr_deallocate(mr, win_bare[i], win_bytes[i], SYMH_MR_DEFAULT_ALIGNMENT);
    }
    for (i = 0; i < live; ++i)
        symh_dev_free(&held[i], 0);
    free(held);
    symh_finalize();
    return 0;
}
