/* examples/structured: "Allocate and copy" of the structured-memory reference in C: the program
 * whose run the reference shows as `heat_2`. A rank-1 temperature field on the device is
 * allocated with bounds 0:5, refined to 0:9, then filled from the host with
 * symh_dev_assign_to_device and brought back.
 *
 * C pointers carry no bounds: the program keeps each array's bounds beside it (bounds_t) and
 * prints those. symh_dev_assign_to_device takes bytes only; the two Fortran forms (lower bounds
 * 1, or those of src) become the bounds the program records for the new buffer. C has no
 * dev_assign_from_device: assign_from_device below is its port (free the host array, allocate
 * it with the device array's size, copy). */
#include <stdio.h>
#include <stdlib.h>

#include <symheap.h>

#define N 8

typedef struct {
    long lb, ub;
} bounds_t;

static size_t extent(bounds_t b)
{
    return (size_t)(b.ub - b.lb + 1);
}

/* dev_assign_from_device(dst, src) or, with keep_lb, (lbounds, dst, src). */
static int assign_from_device(double **dst, bounds_t *dst_b, const void *src, bounds_t src_b,
                              int keep_lb)
{
    free(*dst);
    *dst = malloc(extent(src_b) * sizeof(double));
    if (*dst == NULL)
        return SYMH_ERR_NO_MEMORY;
    dst_b->lb = keep_lb ? src_b.lb : 1;
    dst_b->ub = dst_b->lb + (long)extent(src_b) - 1;
    return symh_dev_memcpy_from_device(*dst, src, extent(src_b) * sizeof(double));
}

int main(void)
{
    void *t_dev = NULL;
    bounds_t t_dev_b = { 0, 5 }, t_b = { 0, N + 1 }, h_b = { 0, 0 };
    double t[N + 2], *h = NULL;
    size_t allocs = 0, bytes = 0;

    if (symh_init() != SYMH_OK)
        return 1;
    if (symh_dev_alloc(&t_dev, extent(t_dev_b) * sizeof(double), NULL) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }
    printf("device array bounds: %ld:%ld\n", t_dev_b.lb, t_dev_b.ub);
    t_dev_b.ub = 9; /* the refinement: a new buffer, the old one freed */
    if (symh_dev_alloc_replace(&t_dev, extent(t_dev_b) * sizeof(double), NULL) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }
    printf("after the refinement: %ld:%ld\n", t_dev_b.lb, t_dev_b.ub);
    symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, &bytes);
    printf("live device allocations: %zu (%zu bytes)\n", allocs, bytes);

    for (size_t k = 0; k < extent(t_b); k++)
        t[k] = 20.0; /* room temperature, cold boundaries */
    t[0] = 0.0;
    t[N + 1] = 0.0;
    if (symh_dev_assign_to_device(&t_dev, t, sizeof(t)) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }
    t_dev_b.lb = 1; /* dev_assign_to_device(dst, src): lower bounds 1 */
    t_dev_b.ub = (long)extent(t_b);
    printf("dev_assign_to_device(dst, src):          %ld:%ld\n", t_dev_b.lb, t_dev_b.ub);
    if (symh_dev_assign_to_device(&t_dev, t, sizeof(t)) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }
    t_dev_b = t_b; /* dev_assign_to_device(lbounds, dst, src): the bounds of src */
    printf("dev_assign_to_device(lbounds, dst, src): %ld:%ld\n", t_dev_b.lb, t_dev_b.ub);

    if (assign_from_device(&h, &h_b, t_dev, t_dev_b, 0) != SYMH_OK)
        return 1;
    printf("dev_assign_from_device(dst, src):          %ld:%ld\n", h_b.lb, h_b.ub);
    if (assign_from_device(&h, &h_b, t_dev, t_dev_b, 1) != SYMH_OK)
        return 1;
    printf("dev_assign_from_device(lbounds, dst, src): %ld:%ld\n", h_b.lb, h_b.ub);
    printf("temperature:");
    for (size_t k = 0; k < extent(h_b); k++)
        printf("%5.1f", h[k]);
    printf("\n");

    symh_dev_free(&t_dev, SYMH_DEVICE_ANY);
    symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, NULL);
    printf("live device allocations: %zu\n", allocs);
    free(h);
    symh_finalize();
    return 0;
}
