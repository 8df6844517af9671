/* bench_transpose: symh_dev_memcpy_transposed (src/registration/reg_dev_transpose.c) against
 * memcpy of the same bytes and the untransposed device copy, in the same run: a rank-2 N x N
 * array of doubles (the two dimensions swapped) and a rank-3 M x M x M array of doubles (ij 1,3:
 * element by element; ij 2,3: rows of M doubles moved whole), both directions; medians of --reps
 * repetitions, printed as a Markdown table. On the host backend the device copy is a memcpy, so
 * a transposed copy costs one transpose plus one memcpy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include <symheap.h>

#define BENCH_MAX_REPS 101

typedef struct {
    const char *name;
    int rank;
    long ub[3];
    int ij[2];
} bench_case_t;

static double bench_gbs(size_t nbytes, double seconds)
{
    return (double)nbytes / seconds * 1e-9;
}

static void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: bench_transpose [--n N] [--m M] [--reps R]\n"
            "  --n     edge of the rank-2 array of doubles (default 4096)\n"
            "  --m     edge of the rank-3 array of doubles (default 256)\n"
            "  --reps  repetitions, median quoted (default 11, at most %d)\n",
            BENCH_MAX_REPS);
}

/* Times every side of one case; returns 0 or 1 (a failed call or a wrong result). */
static int bench_run(const bench_case_t *c, int reps)
{
    const long lb[3] = { 1, 1, 1 };
    size_t n = 1, nbytes;
    double t_memcpy[BENCH_MAX_REPS], t_plain[BENCH_MAX_REPS], t_to[BENCH_MAX_REPS],
        t_from[BENCH_MAX_REPS];
    double *host, *back, *buf, *ref;
    void *dev = NULL;
    int status = SYMH_OK, bad = 0;

    for (int d = 0; d < c->rank; d++)
        n *= (size_t)c->ub[d];
    nbytes = n * sizeof(double);
    host = malloc(nbytes);
    back = malloc(nbytes);
    buf = malloc(nbytes);
    ref = malloc(nbytes);
    if (host == NULL || back == NULL || buf == NULL || ref == NULL ||
        symh_dev_alloc(&dev, nbytes, NULL) != SYMH_OK) {
        fprintf(stderr, "bench_transpose: cannot allocate 4 x %zu bytes\n", nbytes);
        free(host);
        free(back);
        free(buf);
        free(ref);
        return 1;
    }
    for (size_t k = 0; k < n; k++)
        host[k] = (double)k;
    /* Touch every page before timing. */
    memset(back, 0, nbytes);
    memset(buf, 0, nbytes);
    memcpy(ref, host, nbytes);
    for (int r = 0; r < reps; r++) {
        double t0 = symh_bench_now();

        memcpy(back, host, nbytes);
        t_memcpy[r] = symh_bench_now() - t0;
        t0 = symh_bench_now();
        status |= symh_dev_memcpy_to_device(dev, host, nbytes);
        t_plain[r] = symh_bench_now() - t0;
        t0 = symh_bench_now();
        status |= symh_dev_memcpy_transposed(1, c->rank, sizeof(double), lb, c->ub, c->ij, dev,
                                             host, buf);
        t_to[r] = symh_bench_now() - t0;
        t0 = symh_bench_now();
        status |= symh_dev_memcpy_transposed(0, c->rank, sizeof(double), lb, c->ub, c->ij, back,
                                             dev, buf);
        t_from[r] = symh_bench_now() - t0;
    }
    /* The round trip gives the original back. */
    if (status != SYMH_OK || memcmp(back, ref, nbytes) != 0) {
        fprintf(stderr, "bench_transpose: %s: a call failed or the round trip differs\n", c->name);
        bad = 1;
    }
    {
        double m = symh_bench_median(t_memcpy, (size_t)reps);
        double p = symh_bench_median(t_plain, (size_t)reps);
        double to = symh_bench_median(t_to, (size_t)reps);
        double from = symh_bench_median(t_from, (size_t)reps);

        printf("| %s | %zu | %.2f (%.1f) | %.2f (%.1f) | %.2f (%.1f) | %.2f (%.1f) | %.2f | "
               "%.2f |\n",
               c->name, nbytes >> 20, m * 1e3, bench_gbs(nbytes, m), p * 1e3, bench_gbs(nbytes, p),
               to * 1e3, bench_gbs(nbytes, to), from * 1e3, bench_gbs(nbytes, from), to / m,
               from / m);
    }
    symh_dev_free(&dev, SYMH_DEVICE_ANY);
    free(host);
    free(back);
    free(buf);
    free(ref);
    return bad;
}

int main(int argc, char **argv)
{
    long n2 = 4096, m3 = 256;
    int reps = 11, bad = 0;
    char name2[64], name13[64], name23[64];

    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--help") == 0) {
            bench_usage(stdout);
            return 0;
        }
        if (a + 1 < argc && strcmp(argv[a], "--n") == 0) {
            n2 = atol(argv[++a]);
        } else if (a + 1 < argc && strcmp(argv[a], "--m") == 0) {
            m3 = atol(argv[++a]);
        } else if (a + 1 < argc && strcmp(argv[a], "--reps") == 0) {
            reps = atoi(argv[++a]);
        } else {
            bench_usage(stderr);
            return 2;
        }
    }
    if (n2 < 1 || m3 < 1 || reps < 1 || reps > BENCH_MAX_REPS) {
        bench_usage(stderr);
        return 2;
    }
    if (symh_init() != SYMH_OK)
        return 1;
    snprintf(name2, sizeof(name2), "rank 2, %ld x %ld", n2, n2);
    snprintf(name13, sizeof(name13), "rank 3, %ld^3, ij 1,3", m3);
    snprintf(name23, sizeof(name23), "rank 3, %ld^3, ij 2,3", m3);
    {
        const bench_case_t cases[] = {
            { name2, 2, { n2, n2, 1 }, { 1, 2 } },
            { name13, 3, { m3, m3, m3 }, { 1, 3 } },
            { name23, 3, { m3, m3, m3 }, { 2, 3 } },
        };

        printf("doubles; median of %d; ms (GB/s of the array's bytes)\n\n", reps);
        printf("| array | MiB | memcpy | symh_dev_memcpy_to_device | transposed to device | "
               "transposed from device | to / memcpy | from / memcpy |\n");
        printf("|---|---|---|---|---|---|---|---|\n");
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
            bad |= bench_run(&cases[k], reps);
    }
    symh_finalize();
    return bad;
}
