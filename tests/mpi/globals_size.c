/* One PE of the MPMD job of globals_mpmd.sh: built twice with data segments of different sizes
 * (SYMH_TEST_PAD bytes of .bss). symh_init must fail on every PE with SYMH_ERR_MISMATCH. */
#include <stdio.h>

#include <symheap.h>

/* Not static, and its address leaves the file: the compiler must keep all of it. */
char symh_test_pad[SYMH_TEST_PAD];

int main(void)
{
    int status;

    symh_test_pad[0] = 1;
    status = symh_init();
    printf("globals_size: symh_init returned %d (%s) [%p]\n", status, symh_status_string(status),
           (void *)symh_test_pad);
    fflush(stdout);
    if (status == SYMH_OK)
        symh_finalize();
    return status == SYMH_ERR_MISMATCH ? 0 : 1;
}
