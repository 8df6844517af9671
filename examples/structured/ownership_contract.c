/* examples/structured: "Ownership contract" of the structured-memory reference in C (the
 * reference gives the table only; this example is the port's own): what each routine does with a
 * pointer that already holds a buffer, shown by the live allocation count. The leak of dev_alloc
 * is on purpose; the program keeps the leaked pointer to free it at the end. */
#include <stdio.h>

#include <symheap.h>

static size_t live(void)
{
    size_t allocs = 0;

    symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, NULL);
    return allocs;
}

int main(void)
{
    const double x[4] = { 1, 2, 3, 4 };
    void *p = NULL, *leaked;
    int status;

    if (symh_init() != SYMH_OK)
        return 1;
    if (symh_dev_alloc(&p, sizeof(x), NULL) != SYMH_OK)
        return 1;
    leaked = p;
    if (symh_dev_alloc(&p, sizeof(x), NULL) != SYMH_OK) /* the buffer p held leaks */
        return 1;
    printf("dev_alloc on a pointer holding a buffer: live device allocations: %zu (one leaked)\n",
           live());
    symh_dev_free(&leaked, SYMH_DEVICE_ANY);
    if (symh_dev_alloc_replace(&p, 2 * sizeof(x), NULL) != SYMH_OK)
        return 1;
    printf("dev_alloc_replace: frees, then allocates: live device allocations: %zu\n", live());
    if (symh_dev_assign_to_device(&p, x, sizeof(x)) != SYMH_OK)
        return 1;
    printf("dev_assign_to_device: frees, allocates, copies: live device allocations: %zu\n",
           live());
    status = symh_dev_free(&p, SYMH_DEVICE_ANY);
    printf("dev_free: status %d, pointer null: %c, live device allocations: %zu\n", status,
           p == NULL ? 'T' : 'F', live());
    status = symh_dev_free(&p, SYMH_DEVICE_ANY);
    printf("dev_free of a null pointer: status %d (nothing done)\n", status);
    symh_finalize();
    return 0;
}
