/* bench_heap_coll: latency of a collective symh_malloc + symh_free pair against MPI_Barrier,
 * measured in the same run on the same PEs. Medians of --reps repetitions of --iters pairs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap.h>

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int iters = 2000, reps = 7, me, npes, r, i;
    double *pair, *barrier;

    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
    }
    if (iters < 1 || reps < 1) {
        fprintf(stderr, "usage: bench_heap_coll [--iters N] [--reps R]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (symh_init() != SYMH_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    me = symh_my_pe();
    npes = symh_n_pes();
    pair = malloc((size_t)reps * sizeof(double));
    barrier = malloc((size_t)reps * sizeof(double));
    for (r = 0; r < reps; ++r) {
        double t0;

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
        barrier[r] = (MPI_Wtime() - t0) / iters * 1e6;
    }
    if (me == 0) {
        double p = bench_median(pair, reps), b = bench_median(barrier, reps);

        printf("| %d | %.2f | %.2f | %.1f |\n", npes, p, b, p / b);
    }
    free(pair);
    free(barrier);
    symh_finalize();
    MPI_Finalize();
    return 0;
}
