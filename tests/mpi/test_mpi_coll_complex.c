/* The complex reductions of test_mpi_collectives.cc (test_mpi_coll_complex.h): C, because C++
 * has no _Complex and coll.h declares them for C only. */
#include "test_mpi_coll_complex.h"

#include <complex.h>
#include <stdio.h>
#include <string.h>

#include <symheap.h>

/* Inputs: sums of parts in -2 .. 2 by halves; products of 1, -1, i, -i and 1 + i (at most two
 * factors of 1 + i in eight), so every partial result is exact in float. */
static double complex symh_test_complex_value(int is_prod, int pe, size_t k, int salt)
{
    static const double complex factors[5] = { 1.0, -1.0, I, -I, 1.0 + I };
    size_t h = (size_t)pe * 7u + k * 3u + (size_t)salt;

    if (is_prod)
        return factors[((size_t)pe + k + (size_t)salt) % 5];
    return 0.5 * (double)((int)(h % 9) - 4) + 0.5 * I * (double)((int)((h / 9) % 9) - 4);
}

typedef int (*symh_test_reduce_d_t)(symh_team_t, double complex *, const double complex *, size_t);
typedef int (*symh_test_reduce_f_t)(symh_team_t, float complex *, const float complex *, size_t);

static int symh_test_complex_case(symh_team_t team, const int *members, int n_members, int salt,
                                  int is_prod, int is_float, int in_place, void *dest, void *source,
                                  size_t nreduce, char *why, size_t why_len)
{
    const char *name = is_float ? (is_prod ? "complexf_prod" : "complexf_sum")
                                : (is_prod ? "complexd_prod" : "complexd_sum");
    int me = symh_my_pe(), status;
    void *out = in_place ? source : dest;
    size_t k;

    for (k = 0; k < nreduce; ++k) {
        double complex v = symh_test_complex_value(is_prod, me, k, salt);
        if (is_float)
            ((float complex *)source)[k] = (float complex)v;
        else
            ((double complex *)source)[k] = v;
    }
    if (!in_place)
        memset(dest, 0xa5, nreduce * (is_float ? sizeof(float complex) : sizeof(double complex)));
    /* Every member's dest is ready before any member's reduction writes it. */
    status = symh_team_sync(team);
    if (status != SYMH_OK) {
        snprintf(why, why_len, "symh_team_sync returned %d", status);
        return -1;
    }
    if (is_float) {
        symh_test_reduce_f_t fn = is_prod ? symh_complexf_prod_reduce : symh_complexf_sum_reduce;
        status = fn(team, (float complex *)out, (const float complex *)source, nreduce);
    } else {
        symh_test_reduce_d_t fn = is_prod ? symh_complexd_prod_reduce : symh_complexd_sum_reduce;
        status = fn(team, (double complex *)out, (const double complex *)source, nreduce);
    }
    if (status != SYMH_OK) {
        snprintf(why, why_len, "symh_%s_reduce (%zu elements%s) returned %d", name, nreduce,
                 in_place ? ", in place" : "", status);
        return -1;
    }
    for (k = 0; k < nreduce; ++k) {
        double complex want = symh_test_complex_value(is_prod, members[0], k, salt), got;
        int j;
        for (j = 1; j < n_members; ++j) {
            double complex v = symh_test_complex_value(is_prod, members[j], k, salt);
            want = is_prod ? want * v : want + v;
        }
        got = is_float ? (double complex)((float complex *)out)[k] : ((double complex *)out)[k];
        if (got != want) {
            snprintf(why, why_len,
                     "symh_%s_reduce (%zu elements%s) on PE %d: element %zu is %g%+gi, want "
                     "%g%+gi",
                     name, nreduce, in_place ? ", in place" : "", me, k, creal(got), cimag(got),
                     creal(want), cimag(want));
            return -1;
        }
    }
    return 0;
}

int symh_test_coll_complex(symh_team_t team, const int *members, int n_members, int salt,
                           void *dest, void *source, size_t nreduce, char *why, size_t why_len)
{
    int is_prod, is_float, in_place;

    for (is_float = 0; is_float < 2; ++is_float)
        for (is_prod = 0; is_prod < 2; ++is_prod)
            for (in_place = 0; in_place < 2; ++in_place)
                if (symh_test_complex_case(team, members, n_members, salt, is_prod, is_float,
                                           in_place, dest, source, nreduce, why, why_len) != 0)
                    return -1;
    return 0;
}
