/* examples/structured: "dev_alloc" of the structured-memory reference in C: a rank-3 device
 * array of doubles with bounds -1:1, 0:2, 1:3, every element set to -1 on the device by
 * init_value, labelled "q". C pointers carry no bounds: the program keeps them itself (lb, ub)
 * and prints those where the Fortran prints lbound/ubound of q_dev. */
#include <stdio.h>
#include <stdlib.h>

#include <symheap.h>

int main(void)
{
    const long lb[3] = { -1, 0, 1 }, ub[3] = { 1, 2, 3 };
    const double init = -1.0;
    const symh_dev_alloc_opts_t opts = {
        .device = SYMH_DEVICE_CURRENT,
        .init_value = &init,
        .init_size = sizeof(init),
        .label = "q",
    };
    void *q_dev = NULL;
    double *q;
    size_t n = 1;
    int all = 1;

    if (symh_init() != SYMH_OK)
        return 1;
    for (int d = 0; d < 3; d++)
        n *= (size_t)(ub[d] - lb[d] + 1);
    if (symh_dev_alloc(&q_dev, n * sizeof(double), &opts) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }
    q = malloc(n * sizeof(double));
    if (q == NULL || symh_dev_memcpy_from_device(q, q_dev, n * sizeof(double)) != SYMH_OK) {
        fprintf(stderr, "copy from the device failed\n");
        return 1;
    }
    printf("bounds: %ld:%ld %ld:%ld %ld:%ld\n", lb[0], ub[0], lb[1], ub[1], lb[2], ub[2]);
    for (size_t k = 0; k < n; k++)
        all &= q[k] == -1.0;
    printf("every element set on the device to -1: %c\n", all ? 'T' : 'F');
    symh_dev_free(&q_dev, SYMH_DEVICE_ANY);
    free(q);
    symh_finalize();
    return 0;
}
