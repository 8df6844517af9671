/* after_mpi_finalize: symh_init after the application finalized MPI must fail cleanly with
 * SYMH_ERR_BOOTSTRAP and a message, not crash (checked by test_cli.sh). */
#include <stdio.h>

#include <mpi.h>
#include <symheap.h>

int main(int argc, char **argv)
{
    int status;

    MPI_Init(&argc, &argv);
    MPI_Finalize();
    status = symh_init();
    printf("symh_init after MPI_Finalize: %d (%s), initialized %d\n", status,
           symh_status_string(status), symh_initialized());
    return status == SYMH_ERR_BOOTSTRAP && !symh_initialized() ? 0 : 1;
}
