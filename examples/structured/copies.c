/* examples/structured: "Copies" of the structured-memory reference in C: a temperature field
 * copied to the device, forgotten on the host, and copied back. The reference leaves n open; the
 * port takes n = 10, so t(n/2) is t[4] (the Fortran array starts at 1). */
#include <stdio.h>

#include <symheap.h>

#define N 10

int main(void)
{
    double t[N];
    void *t_dev = NULL;

    if (symh_init() != SYMH_OK)
        return 1;
    if (symh_dev_alloc(&t_dev, sizeof(t), NULL) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }
    for (int k = 0; k < N; k++)
        t[k] = 20.0;                                               /* room temperature... */
    t[N / 2 - 1] = 100.0;                                          /* ...with a hot spot */
    if (symh_dev_memcpy_to_device(t_dev, t, sizeof(t)) != SYMH_OK) /* host -> device */
        return 1;
    for (int k = 0; k < N; k++)
        t[k] = 0.0;                                                  /* forget the host copy */
    if (symh_dev_memcpy_from_device(t, t_dev, sizeof(t)) != SYMH_OK) /* device -> host */
        return 1;
    printf("temperature:");
    for (int k = 0; k < N; k++)
        printf("%6.1f", t[k]);
    printf("\n");
    symh_dev_free(&t_dev, SYMH_DEVICE_ANY);
    symh_finalize();
    return 0;
}
