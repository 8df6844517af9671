/* examples/structured: "Transposed copies" of the structured-memory reference in C (the reference
 * shows only the interfaces; this example is the port's own). Arrays are column-major, as in
 * Fortran: element (i, j) of an array with bounds l1:u1, l2:u2 is at (i - l1) + (u1 - l1 + 1) *
 * (j - l2). The bounds given are those of the device array; the host array has them with the
 * dimensions ij swapped (rank 2 always swaps); buf has the device array's shape. C pointers carry
 * no bounds: the program keeps them and prints those. */
#include <stdio.h>

#include <symheap.h>

/* Offset of element x of a column-major array with bounds lb:ub. */
static size_t offset3(const long *lb, const long *ub, const long *x)
{
    return (size_t)((x[0] - lb[0]) +
                    (ub[0] - lb[0] + 1) * ((x[1] - lb[1]) + (ub[1] - lb[1] + 1) * (x[2] - lb[2])));
}

int main(void)
{
    /* rank 2: device a_dev(1:2, 1:3), host t(1:3, 1:2) with t(j, i) = 10 i + j */
    const long lb2[2] = { 1, 1 }, ub2[2] = { 2, 3 };
    double t[6], t2[6], a[6], buf[6];
    /* rank 3: device q_dev(-1:0, 0:2, 1:4), ij = [1, 3]: host h(1:4, 0:2, -1:0) */
    const long lb3[3] = { -1, 0, 1 }, ub3[3] = { 0, 2, 4 };
    const long hlb[3] = { 1, 0, -1 }, hub[3] = { 4, 2, 0 };
    const int ij[2] = { 1, 3 };
    double h[24], h2[24], q[24], buf3[24];
    void *a_dev = NULL, *q_dev = NULL;
    int same = 1;

    if (symh_init() != SYMH_OK)
        return 1;
    if (symh_dev_alloc(&a_dev, sizeof(a), NULL) != SYMH_OK ||
        symh_dev_alloc(&q_dev, sizeof(q), NULL) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }

    for (int i = 1; i <= 2; i++)
        for (int j = 1; j <= 3; j++)
            t[(j - 1) + 3 * (i - 1)] = 10 * i + j;
    /* to the device: t is transposed into buf, then buf is copied to a_dev */
    if (symh_dev_memcpy_transposed(1, 2, sizeof(double), lb2, ub2, NULL, a_dev, t, buf) !=
            SYMH_OK ||
        symh_dev_memcpy_from_device(a, a_dev, sizeof(a)) != SYMH_OK)
        return 1;
    printf("device array bounds: %ld:%ld %ld:%ld\n", lb2[0], ub2[0], lb2[1], ub2[1]);
    for (int i = 1; i <= 2; i++)
        printf("a_dev(%d,:): %.0f %.0f %.0f\n", i, a[i - 1], a[i - 1 + 2], a[i - 1 + 4]);
    /* from the device: a_dev is copied into buf, then buf is transposed into t2 */
    if (symh_dev_memcpy_transposed(0, 2, sizeof(double), lb2, ub2, NULL, t2, a_dev, buf) != SYMH_OK)
        return 1;
    for (int k = 0; k < 6; k++)
        same &= t2[k] == t[k];
    printf("transposed back to the host: %c\n", same ? 'T' : 'F');

    for (long k = hlb[0]; k <= hub[0]; k++)
        for (long j = hlb[1]; j <= hub[1]; j++)
            for (long i = hlb[2]; i <= hub[2]; i++) {
                const long x[3] = { k, j, i };

                h[offset3(hlb, hub, x)] = (double)(100 * i + 10 * j + k);
            }
    if (symh_dev_memcpy_transposed(1, 3, sizeof(double), lb3, ub3, ij, q_dev, h, buf3) != SYMH_OK ||
        symh_dev_memcpy_from_device(q, q_dev, sizeof(q)) != SYMH_OK ||
        symh_dev_memcpy_transposed(0, 3, sizeof(double), lb3, ub3, ij, h2, q_dev, buf3) != SYMH_OK)
        return 1;
    printf("device array bounds: %ld:%ld %ld:%ld %ld:%ld, ij = [%d,%d], host array bounds: "
           "%ld:%ld %ld:%ld %ld:%ld\n",
           lb3[0], ub3[0], lb3[1], ub3[1], lb3[2], ub3[2], ij[0], ij[1], hlb[0], hub[0], hlb[1],
           hub[1], hlb[2], hub[2]);
    same = 1;
    for (long i = lb3[0]; i <= ub3[0]; i++)
        for (long j = lb3[1]; j <= ub3[1]; j++)
            for (long k = lb3[2]; k <= ub3[2]; k++) {
                const long x[3] = { i, j, k }, y[3] = { k, j, i };

                same &= q[offset3(lb3, ub3, x)] == h[offset3(hlb, hub, y)];
                same &= h2[offset3(hlb, hub, y)] == h[offset3(hlb, hub, y)];
            }
    printf("q_dev(i,j,k) == h(k,j,i) everywhere, and back: %c\n", same ? 'T' : 'F');
    symh_dev_free(&a_dev, SYMH_DEVICE_ANY);
    symh_dev_free(&q_dev, SYMH_DEVICE_ANY);
    symh_finalize();
    return 0;
}
