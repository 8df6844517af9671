/* bench_shmem: plain OpenSHMEM latency and bandwidth at 2 PEs, built unchanged against symheap's
 * <shmem.h> and another implementation's (bench/run_shmem.sh compares them). PE 0 measures:
 * 8-byte put (shmem_putmem + shmem_quiet), 8-byte get, 8-byte fetch-add, 4 MiB put bandwidth
 * (shmem_putmem + shmem_quiet) and shmem_barrier_all; each the median of --reps repetitions.
 * Prints one line per metric: "metric value unit". */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define BIG ((size_t)4 << 20)

int main(int argc, char **argv)
{
    int iters = 10000, reps = 11, big_iters = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--iters"))
            iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    if (reps > 101)
        reps = 101;
    shmem_init();
    int me = shmem_my_pe(), peer = shmem_n_pes() > 1 ? 1 : 0;
    long *word = shmem_malloc(sizeof(long));
    char *big = shmem_malloc(BIG);
    char *src = malloc(BIG);
    memset(src, 1, BIG);
    *word = 0;
    double put[101], get[101], fadd[101], bw[101], bar[101];
    long v = 1, sink = 0;
    for (int r = 0; r < reps; r++) {
        shmem_barrier_all();
        if (me == 0) {
            double t = now_us();
            for (int i = 0; i < iters; i++) {
                shmem_putmem(word, &v, sizeof v, peer);
                shmem_quiet();
            }
            put[r] = (now_us() - t) / iters;
            t = now_us();
            for (int i = 0; i < iters; i++)
                shmem_getmem(&sink, word, sizeof sink, peer);
            get[r] = (now_us() - t) / iters;
            t = now_us();
            for (int i = 0; i < iters; i++)
                sink += shmem_long_atomic_fetch_add(word, 1, peer);
            fadd[r] = (now_us() - t) / iters;
            t = now_us();
            for (int i = 0; i < big_iters; i++) {
                shmem_putmem(big, src, BIG, peer);
                shmem_quiet();
            }
            bw[r] = (double)BIG * big_iters / (now_us() - t) / 1e3; /* GB/s */
        }
        shmem_barrier_all();
        double t = now_us();
        for (int i = 0; i < iters / 10; i++)
            shmem_barrier_all();
        bar[r] = (now_us() - t) / (iters / 10);
    }
    if (me == 0) {
        printf("put8_us %.3f\n", median(put, reps));
        printf("get8_us %.3f\n", median(get, reps));
        printf("fadd8_us %.3f\n", median(fadd, reps));
        printf("put4m_gbs %.3f\n", median(bw, reps));
        printf("barrier_us %.3f\n", median(bar, reps));
        if (sink == -1)
            printf("(unreachable)\n");
    }
    free(src);
    shmem_free(big);
    shmem_free(word);
    shmem_finalize();
    return 0;
}
