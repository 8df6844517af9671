// Helpers shared by the multi-PE tests (see mpi_test_main.cc).
#ifndef SYMH_MPI_TEST_UTIL_HPP
#define SYMH_MPI_TEST_UTIL_HPP

#include "symh_gtest.hpp"

// This process's rank in MPI_COMM_WORLD (from the launcher's environment before MPI_Init).
int symh_test_world_rank();
// SYMHTEST_NODE_SIZE, or 0 when the PEs are not split into pretend nodes.
int symh_test_node_size();

#include <cstddef>
#include <cstdint>
#include <string>

// Short names for the tests (the definitions are in mpi_test_main.cc; they use MPI_COMM_WORLD,
// which every multi-PE test binary has initialized by the time a test runs).
namespace symh_test
{
int me();                             // symh_test_world_rank()
int npes();                           // the size of MPI_COMM_WORLD
int count_pes(bool flag);             // on how many PEs `flag` holds (collective)
bool same_everywhere(uint64_t value); // whether every PE passed the same value (collective)

// Lines of a captured log.
inline size_t log_lines(const std::string &log)
{
    size_t n = 0;
    for (char c : log)
        n += c == '\n';
    return n;
}
} // namespace symh_test

#endif
