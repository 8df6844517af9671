/* bench_barrier: symh_barrier_all and the collective symh_malloc(64) + symh_free pair against
 * MPI_Barrier, measured in the same run on the same PEs, on the path the job takes: the
 * shared-memory barrier when every PE is on one node, or with `--node-size K` the bootstrap path
 * (PE i gets SYMH_HOSTID "bench-node<i/K>" before symh_init, so one machine stands in for several
 * nodes, as SYMHTEST_NODE_SIZE does for the tests). Medians of --reps repetitions of --iters calls
 * each; one Markdown row per run (bench/run_barrier.sh prints the header). The pair is also given
 * in symh_barrier_all times: the goal is at most two. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include <symheap.h>
#include <symheap/barrier.h>

int main(int argc, char **argv)
{
    int iters = 20000, reps = 9, node_size = 0, npes, me, r, i;
    double *sbar, *mbar, *pair, t0;
    char hostid[64], path[64];

    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--node-size") == 0)
            node_size = atoi(argv[i + 1]);
    }
    if (iters < 1 || reps < 1 || node_size < 0) {
        fprintf(stderr, "usage: bench_barrier [--iters N] [--reps R] [--node-size K]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (node_size > 0) {
        snprintf(hostid, sizeof(hostid), "bench-node%d", me / node_size);
        setenv("SYMH_HOSTID", hostid, 1);
    }
    if (symh_init() != SYMH_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    me = symh_my_pe();
    npes = symh_n_pes();
    if (node_size > 0)
        snprintf(path, sizeof(path), "nodes of %d (bootstrap)", node_size);
    else
        snprintf(path, sizeof(path), "one node (shm)");
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
        for (i = 0; i < iters; ++i) {
            void *p = symh_malloc(64);

            if (p == NULL)
                MPI_Abort(MPI_COMM_WORLD, 1);
            symh_free(p);
        }
        pair[r] = (MPI_Wtime() - t0) / iters * 1e6;

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (i = 0; i < iters; ++i)
            MPI_Barrier(MPI_COMM_WORLD);
        mbar[r] = (MPI_Wtime() - t0) / iters * 1e6;
    }
    if (me == 0) {
        double s = symh_bench_median(sbar, reps), m = symh_bench_median(mbar, reps);
        double p = symh_bench_median(pair, reps);

        printf("| %d | %s | %.3f | %.3f | %.2f | %.3f | **%.2f** | %.2f |\n", npes, path, s, m,
               s / m, p, p / s, p / m);
    }
    free(sbar);
    free(mbar);
    free(pair);
    symh_finalize();
    MPI_Finalize();
    return 0;
}
