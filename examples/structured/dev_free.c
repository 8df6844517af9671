/* examples/structured: "dev_free" of the structured-memory reference in C: freeing through one
 * pointer sets it to NULL but not an alias of it; freeing the alias is detected (the registry no
 * longer knows the buffer) and nothing is freed. The codes are symheap's (0 and
 * SYMH_ERR_NOT_REGISTERED, -4) where the Fortran prints 0 and FUNDAL_ERR_NOT_REGISTERED (103);
 * the second call also logs a warning on stderr (policy warn), which the C port cannot avoid. */
#include <stdio.h>

#include <symheap.h>

int main(void)
{
    void *a_dev = NULL, *alias;
    int ierr;

    if (symh_init() != SYMH_OK)
        return 1;
    if (symh_dev_alloc(&a_dev, 100 * sizeof(double), NULL) != SYMH_OK) {
        fprintf(stderr, "device allocation failed\n");
        return 1;
    }
    alias = a_dev;
    ierr = symh_dev_free(&a_dev, SYMH_DEVICE_ANY); /* frees the buffer and nulls a_dev, not alias */
    printf("first dev_free: %d\n", ierr);
    ierr =
        symh_dev_free(&alias, SYMH_DEVICE_ANY); /* the same buffer again: detected, nothing freed */
    printf("second dev_free: %d, SYMH_ERR_NOT_REGISTERED: %c\n", ierr,
           ierr == SYMH_ERR_NOT_REGISTERED ? 'T' : 'F');
    symh_finalize();
    return 0;
}
