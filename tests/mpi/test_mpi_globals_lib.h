/* A tiny shared library for test_mpi_globals: its own global, which is not symmetric. */
#ifndef SYMH_TEST_MPI_GLOBALS_LIB_H
#define SYMH_TEST_MPI_GLOBALS_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's static array of 4 ints (reached through this call only, so the executable never
 * gets a copy of it through a copy relocation). */
int *symh_test_globals_lib_array(void);

#ifdef __cplusplus
}
#endif

#endif
