/* A tiny shared library for test_mpi_globals: a global of a shared library, which symheap
 * refuses as an RMA target (SYMH_ERR_NOT_SYMMETRIC). */
#include "test_mpi_globals_lib.h"

static int symh_test_globals_lib_data[4];

int *symh_test_globals_lib_array(void)
{
    return symh_test_globals_lib_data;
}
