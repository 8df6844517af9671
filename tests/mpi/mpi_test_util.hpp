// Helpers shared by the multi-PE tests (see mpi_test_main.cc).
#ifndef SYMH_MPI_TEST_UTIL_HPP
#define SYMH_MPI_TEST_UTIL_HPP

#include "symh_gtest.hpp"

// This process's rank in MPI_COMM_WORLD (from the launcher's environment before MPI_Init).
int symh_test_world_rank();
// SYMHTEST_NODE_SIZE, or 0 when the PEs are not split into pretend nodes.
int symh_test_node_size();

#endif
