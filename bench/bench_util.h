/* bench: helpers shared by the benchmark programs (header-only: each bench is one program). */
#ifndef SYMH_BENCH_UTIL_H
#define SYMH_BENCH_UTIL_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The options every size sweep shares: --min BYTES, --max BYTES, --iters N, --reps R, --csv FILE.
 * Takes argv[i] and its value argv[i + 1] when it is one of them: 1, else 0 (the caller's own
 * options then). */
static inline int symh_bench_sweep_option(char **argv, int i, size_t *min, size_t *max, long *iters,
                                          int *reps, const char **csv)
{
    if (strcmp(argv[i], "--min") == 0)
        *min = (size_t)strtoull(argv[i + 1], NULL, 0);
    else if (strcmp(argv[i], "--max") == 0)
        *max = (size_t)strtoull(argv[i + 1], NULL, 0);
    else if (strcmp(argv[i], "--iters") == 0)
        *iters = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--reps") == 0)
        *reps = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--csv") == 0)
        *csv = argv[i + 1];
    else
        return 0;
    return 1;
}

static inline int symh_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Seconds on the monotonic clock. */
static inline double symh_bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The median of v[0..n) (n > 0); sorts v in place. */
static inline double symh_bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), symh_bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* SYMH_BENCH_UTIL_H */
