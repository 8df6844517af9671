/* bench: context scaling (docs/contexts.md): the message rate of 1, 2 and 4 threads of PE 0, each
 * issuing 8-byte non-blocking puts to PE 1 in batches closed by a quiet, (a) each thread on a
 * private context of its own, (b) all threads on the default context, against (c) Open MPI with
 * one window per thread (MPI_Put + MPI_Win_flush), measured in the same run. Run it at 2 PEs:
 *   mpirun -np 2 bench_ctx [--threads 1,2,4] [--batch N] [--batches N] [--reps R]
 * with SYMH_TRANSPORT=ucx (and Open MPI on the same wire, bench/README.md) for the NIC. */
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap.h>

#include "bench_util.h"

#define BENCH_CTX_MAX_THREADS 16

typedef enum { BENCH_PRIVATE, BENCH_DEFAULT, BENCH_MPI } bench_ctx_kind_t;

static struct {
    bench_ctx_kind_t kind;
    int threads;
    long batch, batches;
    long *target; /* symmetric: BENCH_CTX_MAX_THREADS * batch longs */
    MPI_Win wins[BENCH_CTX_MAX_THREADS];
    long *win_base[BENCH_CTX_MAX_THREADS];
    pthread_barrier_t start;
    double t_start[BENCH_CTX_MAX_THREADS], t_end[BENCH_CTX_MAX_THREADS];
    int failed;
} bench;

static void *bench_ctx_thread(void *arg)
{
    int t = (int)(long)arg;
    symh_ctx_t ctx = SYMH_CTX_DEFAULT;
    long value = t + 1, *dest = bench.target + (size_t)t * (size_t)bench.batch;

    if (bench.kind == BENCH_PRIVATE && symh_ctx_create(SYMH_CTX_PRIVATE, &ctx) != SYMH_OK) {
        bench.failed = 1;
        ctx = SYMH_CTX_DEFAULT;
    }
    pthread_barrier_wait(&bench.start);
    bench.t_start[t] = symh_bench_now();
    for (long b = 0; b < bench.batches; ++b) {
        if (bench.kind == BENCH_MPI) {
            for (long i = 0; i < bench.batch; ++i)
                MPI_Put(&value, 1, MPI_LONG, 1, (MPI_Aint)i, 1, MPI_LONG, bench.wins[t]);
            MPI_Win_flush(1, bench.wins[t]);
        } else {
            for (long i = 0; i < bench.batch; ++i)
                symh_ctx_long_put_nbi(ctx, dest + i, &value, 1, 1);
            symh_ctx_quiet(ctx);
        }
    }
    bench.t_end[t] = symh_bench_now();
    if (ctx != SYMH_CTX_DEFAULT)
        symh_ctx_destroy(ctx);
    return NULL;
}

/* Messages per second of one repetition on PE 0 (PE 1 waits in the barrier meanwhile). */
static double bench_ctx_run(bench_ctx_kind_t kind, int threads)
{
    pthread_t tid[BENCH_CTX_MAX_THREADS];
    double t0 = 0, t1 = 0;

    bench.kind = kind;
    bench.threads = threads;
    if (kind == BENCH_MPI)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        symh_barrier_all();
    if (symh_my_pe() == 0) {
        pthread_barrier_init(&bench.start, NULL, (unsigned)threads + 1);
        for (int t = 0; t < threads; ++t)
            pthread_create(&tid[t], NULL, bench_ctx_thread, (void *)(long)t);
        pthread_barrier_wait(&bench.start);
        for (int t = 0; t < threads; ++t)
            pthread_join(tid[t], NULL);
        /* From the first thread's start to the last one's end, as the threads saw them (the
         * main thread may be descheduled while they run). */
        t0 = bench.t_start[0];
        t1 = bench.t_end[0];
        for (int t = 1; t < threads; ++t) {
            t0 = bench.t_start[t] < t0 ? bench.t_start[t] : t0;
            t1 = bench.t_end[t] > t1 ? bench.t_end[t] : t1;
        }
        pthread_barrier_destroy(&bench.start);
    }
    if (kind == BENCH_MPI)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        symh_barrier_all();
    return symh_my_pe() == 0 ? (double)threads * bench.batch * bench.batches / (t1 - t0) : 0;
}

int main(int argc, char **argv)
{
    int counts[BENCH_CTX_MAX_THREADS], n_counts = 0, provided = 0, reps = 7;
    char list[256] = "1,2,4";

    bench.batch = 64;
    bench.batches = 2000;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            snprintf(list, sizeof(list), "%s", argv[++i]);
        else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc)
            bench.batch = atol(argv[++i]);
        else if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc)
            bench.batches = atol(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: bench_ctx [--threads 1,2,4] [--batch N] [--batches N] [--reps R]\n");
            return 2;
        }
    }
    for (char *tok = strtok(list, ","); tok != NULL && n_counts < BENCH_CTX_MAX_THREADS;
         tok = strtok(NULL, ","))
        counts[n_counts++] = atoi(tok);
    for (int i = 0; i < n_counts; ++i)
        if (counts[i] < 1 || counts[i] > BENCH_CTX_MAX_THREADS) {
            fprintf(stderr, "bench_ctx: thread counts are 1..%d\n", BENCH_CTX_MAX_THREADS);
            return 2;
        }
    if (bench.batch < 1 || bench.batches < 1 || reps < 1) {
        fprintf(stderr, "bench_ctx: --batch, --batches and --reps must be positive\n");
        return 2;
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE ||
        symh_init_thread(SYMH_THREAD_MULTIPLE, &provided) != SYMH_OK ||
        provided != SYMH_THREAD_MULTIPLE) {
        fprintf(stderr, "bench_ctx: needs MPI_THREAD_MULTIPLE and SYMH_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (symh_n_pes() != 2) {
        if (symh_my_pe() == 0)
            fprintf(stderr, "bench_ctx: run it at 2 PEs\n");
        symh_finalize();
        MPI_Finalize();
        return 2;
    }
    bench.target = symh_calloc((size_t)BENCH_CTX_MAX_THREADS * (size_t)bench.batch, sizeof(long));
    for (int t = 0; t < BENCH_CTX_MAX_THREADS; ++t) {
        MPI_Win_allocate((MPI_Aint)(bench.batch * (long)sizeof(long)), sizeof(long), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &bench.win_base[t], &bench.wins[t]);
        MPI_Win_lock_all(0, bench.wins[t]);
    }
    if (bench.target == NULL) {
        fprintf(stderr, "bench_ctx: symh_calloc failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (symh_my_pe() == 0)
        printf("# bench_ctx: %ld-message batches of 8-byte puts + quiet/flush, %ld batches per "
               "thread, median of %d\n"
               "# threads  private_ctx_msg/s  default_ctx_msg/s  mpi_msg/s  private/mpi  "
               "private/default\n",
               bench.batch, bench.batches, reps);
    for (int c = 0; c < n_counts; ++c) {
        double priv[64], def[64], mpi[64];
        int r_max = reps < 64 ? reps : 64;

        (void)bench_ctx_run(BENCH_PRIVATE, counts[c]); /* warm-up: connections, caches */
        (void)bench_ctx_run(BENCH_MPI, counts[c]);
        for (int r = 0; r < r_max; ++r) { /* interleaved, so drift hits all three alike */
            priv[r] = bench_ctx_run(BENCH_PRIVATE, counts[c]);
            def[r] = bench_ctx_run(BENCH_DEFAULT, counts[c]);
            mpi[r] = bench_ctx_run(BENCH_MPI, counts[c]);
        }
        if (symh_my_pe() == 0) {
            double p = symh_bench_median(priv, (size_t)r_max);
            double d = symh_bench_median(def, (size_t)r_max);
            double m = symh_bench_median(mpi, (size_t)r_max);
            printf("%9d  %17.0f  %17.0f  %9.0f  %11.2f  %15.2f\n", counts[c], p, d, m, p / m,
                   p / d);
        }
    }
    for (int t = 0; t < BENCH_CTX_MAX_THREADS; ++t) {
        MPI_Win_unlock_all(bench.wins[t]);
        MPI_Win_free(&bench.wins[t]);
    }
    symh_free(bench.target);
    if (bench.failed && symh_my_pe() == 0)
        fprintf(stderr, "bench_ctx: a private context could not be created\n");
    symh_finalize();
    MPI_Finalize();
    return bench.failed ? 1 : 0;
}
