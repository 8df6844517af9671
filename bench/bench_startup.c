/* bench: start-up at N PEs. Each PE takes, from the start of main(), the time to MPI_Init plus
 * the first MPI_Barrier (MPI's own start-up), then the time to symh_init plus the first
 * symh_barrier_all on that MPI (symheap's start-up: configuration, the job-wide agreement, node
 * grouping, routes, the window and the node-local exchange, the transports, the heap). PE 0
 * prints the slowest PE's figures, one line, for bench/run_startup.sh to collect:
 *   startup np=N mpi_s=... symh_s=... ratio=...
 * usage: mpirun -np N bench_startup */
#include <mpi.h>
#include <stdio.h>

#include <symheap.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
    double t0 = symh_bench_now(), t1, t2, mine[2], slowest[2];
    int me, n;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Barrier(MPI_COMM_WORLD);
    t1 = symh_bench_now();
    if (symh_init() != SYMH_OK) {
        fprintf(stderr, "bench_startup: symh_init failed: %s\n",
                symh_status_string(symh_last_error()));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    symh_barrier_all();
    t2 = symh_bench_now();
    mine[0] = t1 - t0;
    mine[1] = t2 - t1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("startup np=%d mpi_s=%.4f symh_s=%.4f ratio=%.3f\n", n, slowest[0], slowest[1],
               slowest[1] / slowest[0]);
    symh_finalize();
    MPI_Finalize();
    return 0;
}
