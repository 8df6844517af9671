/* bench_barrier: symh_barrier_all and the collective symh_malloc + symh_free pair against
 * MPI_Barrier, measured in the same run on the same PEs. Medians of --reps repetitions of
 * --iters calls each; one Markdown row per run (bench/run_barrier.sh prints the header). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include <symheap.h>
#include <symheap/barrier.h>

int main(int argc, char **argv)
{
    int iters = 20000, reps = 9, npes, me, r, i;
    double *sbar, *mbar, *pair, t0;

    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
    }
    if (iters < 1 || reps < 1) {
        fprintf(stderr, "usage: bench_barrier [--iters N] [--reps R]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (symh_init() != SYMH_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    me = symh_my_pe();
    npes = symh_n_pes();
    sbar = malloc((size_t)reps * sizeof(double));
    mbar = malloc((size_t)reps * sizeof(double));
    pair = malloc((size_t)reps * sizeof(double));
    if (sbar == NULL || mbar == NULL || pair == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (r = 0; r < reps; ++r) {
        /* Interleaved per repetition, so drift on the machine hits all three alike. */
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (i = 0; i < iters; ++i)
            symh_barrier_all();
        sbar[r] = (MPI_Wtime() - t0) / iters * 1e6;

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (i = 0; i < iters; ++i)
            MPI_Barrier(MPI_COMM_WORLD);
        mbar[r] = (MPI_Wtime() - t0) / iters * 1e6;

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (i = 0; i < iters; ++i) {
            void *p = symh_malloc(64);

            if (p == NULL)
                MPI_Abort(MPI_COMM_WORLD, 1);
            symh_free(p);
        }
        pair[r] = (MPI_Wtime() - t0) / iters * 1e6;
    }
    if (me == 0) {
        double s = symh_bench_median(sbar, reps), m = symh_bench_median(mbar, reps);
        double p = symh_bench_median(pair, reps);

        printf("| %d | %.3f | %.3f | %.2f | %.3f | %.2f |\n", npes, s, m, s / m, p, p / m);
    }
    free(sbar);
    free(mbar);
    free(pair);
    symh_finalize();
    MPI_Finalize();
    return 0;
}
