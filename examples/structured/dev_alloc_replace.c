/* examples/structured: "dev_alloc_replace" of the structured-memory reference in C: the buffer
 * is replaced four times (10, 20, 30, 40 doubles), each call freeing the previous one, so one
 * allocation stays live; its first values come from init_value, not from the previous buffer.
 * C pointers carry no size: the program keeps it (n) and prints it for size(u_dev). */
#include <stdio.h>

#include <symheap.h>

int main(void)
{
    void *u_dev = NULL;
    double u[4];
    size_t allocs = 0, n = 0;

    if (symh_init() != SYMH_OK)
        return 1;
    for (n = 10; n <= 40; n += 10) { /* the previous buffer is freed at each call: no leak */
        const double value = (double)n;
        const symh_dev_alloc_opts_t opts = {
            .device = SYMH_DEVICE_CURRENT,
            .init_value = &value,
            .init_size = sizeof(value),
            .label = "u",
        };

        if (symh_dev_alloc_replace(&u_dev, n * sizeof(double), &opts) != SYMH_OK) {
            fprintf(stderr, "device allocation failed\n");
            return 1;
        }
    }
    n -= 10;
    symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, NULL);
    if (symh_dev_memcpy_from_device(u, u_dev, sizeof(u)) != SYMH_OK) { /* u_dev(1:4) */
        fprintf(stderr, "copy from the device failed\n");
        return 1;
    }
    printf("size: %zu, live device allocations: %zu\n", n, allocs);
    printf("first values (set by init_value, not preserved from the previous buffer):");
    for (int k = 0; k < 4; k++)
        printf("%5.1f", u[k]);
    printf("\n");
    symh_dev_free(&u_dev, SYMH_DEVICE_ANY);
    symh_finalize();
    return 0;
}
