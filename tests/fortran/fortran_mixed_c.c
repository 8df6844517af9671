/* tests/fortran: the C half of test_fortran_mixed: allocates, fills, checks and frees through
 * the C API, on the registry the Fortran module uses. */
#include <symheap.h>

/* A device array of n doubles set to value (label "from C"), or NULL. */
double *mixed_c_alloc(int n, double value)
{
    const symh_dev_alloc_opts_t opts = { SYMH_DEVICE_CURRENT, &value, sizeof(value), "from C" };
    void *p = NULL;

    return symh_dev_alloc(&p, (size_t)n * sizeof(double), &opts) == SYMH_OK ? p : NULL;
}

/* 0 when the device array p of n doubles (allocated by Fortran) holds 1, 2, .., n; frees it. */
int mixed_c_check_and_free(double *p, int n)
{
    double v;
    void *q = p;
    int bad = 0;

    for (int k = 0; k < n; k++)
        if (symh_dev_memcpy_from_device(&v, p + k, sizeof(v)) != SYMH_OK || v != k + 1)
            bad = 1;
    if (symh_dev_free(&q, SYMH_DEVICE_ANY) != SYMH_OK)
        bad = 1;
    return bad;
}
