/* bench_heap_populate: what SYMH_HEAP_POPULATE=1 costs (docs/heap.md "The heap's memory"): the
 * time of symh_init with and without it (the slowest PE), and of the heap's first touch after it
 * (a symh_calloc of --touch MiB, whose zeroing touches every page; 0 leaves it out). One process
 * per PE makes init and finalize in turn, the variable set before each init, so that drift on the
 * machine hits both alike; medians of --reps runs of each. The heap is SYMH_HEAP_SIZE as the
 * environment gives it (symheap's default: 1g). One Markdown table. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include <symheap.h>

/* One init (with SYMH_HEAP_POPULATE=populate), touch and finalize; the slowest PE's seconds. */
static void symh_bench_populate_run(int populate, size_t touch_mib, double *init, double *touch)
{
    double t[2], slowest[2];
    char *p = NULL;

    setenv("SYMH_HEAP_POPULATE", populate ? "1" : "0", 1);
    MPI_Barrier(MPI_COMM_WORLD);
    t[0] = symh_bench_now();
    if (symh_init() != SYMH_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    t[0] = symh_bench_now() - t[0];
    t[1] = symh_bench_now();
    if (touch_mib > 0 && (p = symh_calloc(touch_mib, (size_t)1 << 20)) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    t[1] = symh_bench_now() - t[1];
    symh_free(p);
    symh_finalize();
    MPI_Allreduce(t, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *init = slowest[0];
    *touch = slowest[1];
}

int main(int argc, char **argv)
{
    int reps = 7, npes, me, r, i;
    size_t touch_mib = 0;
    double *init[2], *touch[2], med_init[2], med_touch[2];
    const char *heap = getenv("SYMH_HEAP_SIZE");

    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--touch") == 0)
            touch_mib = (size_t)strtoull(argv[i + 1], NULL, 10);
    }
    if (reps < 1) {
        fprintf(stderr, "usage: bench_heap_populate [--reps R] [--touch MIB]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    for (i = 0; i < 2; ++i) {
        init[i] = malloc((size_t)reps * sizeof(double));
        touch[i] = malloc((size_t)reps * sizeof(double));
        if (init[i] == NULL || touch[i] == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (r = 0; r < reps; ++r)
        for (i = 0; i < 2; ++i)
            symh_bench_populate_run(i, touch_mib, &init[i][r], &touch[i][r]);
    for (i = 0; i < 2; ++i) {
        med_init[i] = symh_bench_median(init[i], (size_t)reps);
        med_touch[i] = symh_bench_median(touch[i], (size_t)reps);
    }
    if (me == 0) {
        printf("| PEs | SYMH_HEAP_SIZE | symh_init, POPULATE=0 (s) | symh_init, POPULATE=1 (s) | "
               "more (s) | calloc %zu MiB after, 0 (s) | after, 1 (s) |\n",
               touch_mib);
        printf("|---:|---|---:|---:|---:|---:|---:|\n");
        printf("| %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", npes,
               heap != NULL ? heap : "(default)", med_init[0], med_init[1],
               med_init[1] - med_init[0], med_touch[0], med_touch[1]);
    }
    for (i = 0; i < 2; ++i) {
        free(init[i]);
        free(touch[i]);
    }
    MPI_Finalize();
    return 0;
}
