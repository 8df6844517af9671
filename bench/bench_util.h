/* bench: helpers shared by the benchmark programs (header-only: each bench is one program). */
#ifndef SYMH_BENCH_UTIL_H
#define SYMH_BENCH_UTIL_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

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
